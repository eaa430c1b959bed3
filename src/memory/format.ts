/**
 * The memory file format (pure): one entry per bullet line with its metadata in a trailing HTML
 * comment; adding, replacing and removing an entry keeps every other line as it was.
 * Deliberately does not check sizes, rights or secrets, or touch the disk.
 */

export interface EntryMeta {
  added?: string
  source?: string
  by?: string
}

export interface Entry {
  text: string
  meta: EntryMeta
  /** Index of its line in the file. */
  line: number
}

const ENTRY_LINE = /^- (.+?) <!-- (.*) -->$/

/** Entries of a file, in order; lines without a metadata comment are hand-written and not entries. */
export function parseEntries(file: string): Entry[] {
  const out: Entry[] = []
  file.split('\n').forEach((line, index) => {
    const m = ENTRY_LINE.exec(line)
    if (!m) return
    const meta: EntryMeta = {}
    for (const part of m[2]!.split(';')) {
      const [key, ...rest] = part.split(':')
      const k = key?.trim()
      if (k === 'added' || k === 'source' || k === 'by') meta[k] = rest.join(':').trim()
    }
    out.push({ text: m[1]!, meta, line: index })
  })
  return out
}

/** One entry's line. Metadata values lose `;`, `<`, `>` and newlines so the line parses back. */
export function entryLine(text: string, meta: EntryMeta): string {
  const clean = (v: string) =>
    v
      .replace(/[;<>\n\r]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  const parts = (['added', 'source', 'by'] as const).flatMap((k) => (meta[k] ? [`${k}: ${clean(meta[k]!)}`] : []))
  return `- ${text} <!-- ${parts.join('; ')} -->`
}

/** Why `text` cannot be an entry line at all (empty, several lines, or comment markers), else undefined. */
export function entryShapeProblem(text: string): string | undefined {
  if (!text.trim()) return 'the entry is empty'
  if (/[\n\r]/.test(text)) return 'an entry is one line; save one fact per entry'
  if (text.includes('<!--') || text.includes('-->')) return 'an entry cannot contain "<!--" or "-->"'
  return undefined
}

/** A new file's first line. */
export function fileTitle(title: string): string {
  return `# ${title}\n`
}

/** `file` with the entry added after the last entry (or at the end), hand-written lines untouched. */
export function addEntry(file: string, line: string, title: string): string {
  const base = file.trim() ? file : fileTitle(title)
  const lines = base.replace(/\n+$/, '').split('\n')
  const last = parseEntries(base).at(-1)
  const at = last ? last.line + 1 : lines.length
  lines.splice(at, 0, line)
  return `${lines.join('\n')}\n`
}

/** `file` with the entry at `entry.line` replaced by `line` (`undefined`: removed). */
export function replaceLine(file: string, entry: Entry, line: string | undefined): string {
  const lines = file.split('\n')
  if (line === undefined) lines.splice(entry.line, 1)
  else lines[entry.line] = line
  return lines.join('\n')
}

export type Match = { kind: 'one'; entry: Entry } | { kind: 'none' } | { kind: 'many'; entries: Entry[] }

/** The entry `ref` names: its exact text, else the one entry containing it (case-insensitive). */
export function findEntry(entries: readonly Entry[], ref: string): Match {
  const want = ref.trim()
  const exact = entries.find((e) => e.text === want)
  if (exact) return { kind: 'one', entry: exact }
  const lower = want.toLowerCase()
  const found = entries.filter((e) => e.text.toLowerCase().includes(lower))
  if (found.length === 1) return { kind: 'one', entry: found[0]! }
  return found.length ? { kind: 'many', entries: found } : { kind: 'none' }
}

/** A file as a prompt or a search shows it: metadata comments and the title line dropped. */
export function plainText(file: string): string {
  return file
    .split('\n')
    .filter((line, i) => !(i === 0 && line.startsWith('# ')))
    .map((line) => line.replace(/ <!-- .* -->$/, ''))
    .join('\n')
    .trim()
}

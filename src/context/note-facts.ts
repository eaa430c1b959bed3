/**
 * The facts a handoff must keep, checked in code (pure): the paths, URLs, identifiers (`PROJ-123`,
 * hex of 7+ characters with a digit in it), quoted names and error lines of a part's latest user
 * messages and tool errors. `keepFacts` appends each one that is neither in the note nor in the
 * package, word for word, under the note heading it belongs to (paths, URLs: Where to look;
 * identifiers, names: Facts to keep; errors: Open threads), at most `FACTS_MAX` of them and
 * `FACTS_CHARS` characters. Deliberately does not mask (the caller masks the whole package).
 */
import type { ArchiveLine } from '../core/log-lines.ts'

/** The latest user messages and tool errors of a part that are read for facts. */
export const FACT_USER_MESSAGES = 6
export const FACT_TOOL_ERRORS = 10
export const FACTS_MAX = 40
export const FACTS_CHARS = 3_000
const ERROR_LINE_CHARS = 300

type Heading = 'Where to look' | 'Facts to keep' | 'Open threads'

export interface Fact {
  heading: Heading
  text: string
}

const URL = /\bhttps?:\/\/[^\s<>"'`)\]]+/g
const PATH =
  /(?:^|[\s("'`[=:])((?:~|\.{1,2})?\/[\w.@+-]+(?:\/[\w.@+-]+)+\/?|[A-Za-z]:\\[\w .\\-]+|(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s)"'`\],;:!?])/g
const TICKET = /\b[A-Z][A-Z0-9]*-\d+\b/g
const HEX = /(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}(?![\w-])/g
const QUOTED = /"([^"\n]{2,80})"|“([^”\n]{2,80})”|「([^」\n]{2,80})」|`([^`\n]{2,80})`|(?<![\w])'([^'\n]{2,80})'(?![\w])/g
const ERROR_LINE =
  /^\s*(?:[\w.]*(?:Error|Exception)\b|error\b|ERROR\b|fatal\b|FATAL\b|panic:|Traceback\b|npm ERR!|E\d{3,}\b|ERR_[A-Z_]+|FAIL(?:ED)?\b|[\w./-]+:\d+(?::\d+)?:?\s*(?:error|Error)\b|\w+: (?:error|command not found|No such file))/

const trimEnd = (s: string) => s.replace(/[.,;:!?]+$/, '')

/** The facts of one text, in order of appearance (duplicates removed by the caller). */
function factsOf(text: string, errorsToo: boolean): Fact[] {
  const found: { at: number; fact: Fact }[] = []
  const add = (at: number, heading: Heading, raw: string) => {
    const t = raw.trim()
    if (t) found.push({ at, fact: { heading, text: t } })
  }
  for (const m of text.matchAll(URL)) add(m.index, 'Where to look', trimEnd(m[0]))
  const noUrls = text.replace(URL, (u) => ' '.repeat(u.length))
  for (const m of noUrls.matchAll(PATH)) add(m.index, 'Where to look', trimEnd(m[1]!))
  for (const m of noUrls.matchAll(TICKET)) add(m.index, 'Facts to keep', m[0])
  for (const m of noUrls.matchAll(HEX)) add(m.index, 'Facts to keep', m[0])
  for (const m of text.matchAll(QUOTED)) add(m.index, 'Facts to keep', m[0])
  if (errorsToo) {
    let at = 0
    for (const line of text.split('\n')) {
      if (ERROR_LINE.test(line)) add(at, 'Open threads', line.trim().slice(0, ERROR_LINE_CHARS))
      at += line.length + 1
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.fact)
}

const TOOL_ERROR = /^\[tool result\] [\w.-]+ \(error\): /

/** The facts of a part's latest user messages and tool errors, oldest first, each once. */
export function partFacts(lines: readonly Pick<ArchiveLine, 'who' | 'text'>[]): Fact[] {
  const users = lines.filter((l) => l.who === 'user').slice(-FACT_USER_MESSAGES)
  const errors = lines.filter((l) => l.who === 'tool' && TOOL_ERROR.test(l.text)).slice(-FACT_TOOL_ERRORS)
  const picked = lines.filter((l) => users.includes(l) || errors.includes(l))
  const seen = new Set<string>()
  const out: Fact[] = []
  for (const line of picked) {
    const isError = errors.includes(line)
    const text = isError ? line.text.replace(TOOL_ERROR, '') : line.text
    const facts = isError ? [{ heading: 'Open threads' as const, text: text.trim() }, ...factsOf(text, false)] : factsOf(text, true)
    for (const f of facts) {
      if (seen.has(f.text)) continue
      seen.add(f.text)
      out.push(f)
    }
  }
  return out
}

/** The facts found in neither the note nor the package (pure; `within` is everything the new part gets). */
export function missingFacts(facts: readonly Fact[], within: string): Fact[] {
  return facts.filter((f) => !within.includes(f.text))
}

const KEPT = 'Kept word for word from the latest messages and tool errors (checked in code):'

/**
 * The note with the missing facts appended under their headings (pure), at most `FACTS_MAX` facts
 * and `FACTS_CHARS` characters; a note without the heading gets it at the end.
 */
export function keepFacts(note: string, missing: readonly Fact[]): string {
  if (!missing.length) return note
  let budget = FACTS_CHARS
  const kept: Fact[] = []
  for (const f of missing.slice(0, FACTS_MAX)) {
    if (f.text.length + 4 > budget) break
    budget -= f.text.length + 4
    kept.push(f)
  }
  let out = note
  for (const heading of ['Facts to keep', 'Open threads', 'Where to look'] as const) {
    const items = kept.filter((f) => f.heading === heading)
    if (!items.length) continue
    const block = [KEPT, ...items.map((f) => `- ${f.text}`)].join('\n')
    const at = out.indexOf(`## ${heading}`)
    if (at < 0) {
      out = `${out.trimEnd()}\n\n## ${heading}\n${block}`
      continue
    }
    const next = out.indexOf('\n## ', at + 3)
    const end = next < 0 ? out.length : next
    out = `${out.slice(0, end).trimEnd()}\n${block}${out.slice(end)}`
  }
  return out
}

/**
 * Names: `normaliseName` and `nameKey` (NFKC, case-folded), the one way Bots, groups, members and
 * `@mentions` are compared; `byRef`, the one lookup by id or name; `invisibleIn`, `confusableWith`
 * (TR39 skeletons) and `shownName` / `terminalText`, which escape what may not show raw.
 * Deliberately pure; what a valid name is lives in the field rules.
 */
import unhomoglyph from 'unhomoglyph'

/** The stored form of a name: trimmed, NFC, inner whitespace runs collapsed to one space. */
export function normaliseName(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/gu, ' ')
}

/** The comparison key of a name: two names are the same exactly when their keys are equal. */
export function nameKey(name: string): string {
  return normaliseName(name).normalize('NFKC').toUpperCase().toLowerCase()
}

/** The entry a reference names: the one whose id is `ref` (trimmed), else the one whose name has its key. */
export function byRef<T extends { id: string; name: string }>(entries: Iterable<T>, ref: string): T | undefined {
  const id = String(ref ?? '').trim()
  const key = nameKey(String(ref ?? ''))
  let named: T | undefined
  for (const e of entries) {
    if (e.id === id) return e
    if (named === undefined && nameKey(e.name) === key) named = e
  }
  return named
}

/** A zero-width joiner inside an emoji sequence (👩‍💻): the one format character a name may hold. */
const EMOJI_ZWJ = /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu
/** Controls, format characters (zero-width, soft hyphen, word joiner, bidi marks, overrides, isolates), line and paragraph separators, lone surrogates. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu
const FORMAT_ALL = /\p{Cf}/gu

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/** The first character a new name may not hold (`U+200B`), or undefined: controls, format and bidi characters, separators. */
export function invisibleIn(name: string): string | undefined {
  const found = INVISIBLE.exec(name.replace(EMOJI_ZWJ, ''))
  return found ? codePoint(found[0]) : undefined
}

/** TR39's skeleton (NFD, each character to its prototype, NFD again) without format characters. */
function skeleton(text: string): string {
  return unhomoglyph(text.replace(FORMAT_ALL, '').normalize('NFD')).normalize('NFD')
}

/**
 * The keys two names are confusable by: the skeletons of the name in lower and in upper case
 * (TR39 skeletons are case-sensitive; names here are not), each lower-cased.
 */
function confusableKeys(name: string): [string, string] {
  const base = normaliseName(name).normalize('NFKC')
  return [skeleton(base.toLowerCase()).toLowerCase(), skeleton(base.toUpperCase()).toLowerCase()]
}

/** The entry whose name looks like `name` (shares a TR39 skeleton with it, any case), other than `except`. */
export function confusableWith<T extends { id: string; name: string }>(name: string, entries: Iterable<T>, except?: string): T | undefined {
  const [lower, upper] = confusableKeys(name)
  for (const e of entries) {
    if (e.id === except) continue
    const [l, u] = confusableKeys(e.name)
    if (l === lower || u === upper) return e
  }
  return undefined
}

interface Named {
  id: string
  name: string
  deleted?: unknown
}

/** The live Bot or group (other than `exceptId`) whose name looks like `candidate`, in words ("Bot Main"). */
export function lookalikeOf(
  candidate: string,
  team: { bots: Readonly<Record<string, Named>>; groups: Readonly<Record<string, Named>> },
  exceptId?: string,
): string | undefined {
  const live = (r: Readonly<Record<string, Named>>) => Object.values(r).filter((e) => !e.deleted)
  const bot = confusableWith(candidate, live(team.bots), exceptId)
  if (bot) return `Bot ${bot.name}`
  const group = confusableWith(candidate, live(team.groups), exceptId)
  return group ? `group ${group.name}` : undefined
}

const escapeChar = (ch: string) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`

/**
 * A name as it is shown (sidebar, message headers, room lines): a name saved before such
 * characters were refused keeps working, with each invisible character written as `\u{200B}`.
 */
export function shownName(name: string): string {
  if (!INVISIBLE.test(name.replace(EMOJI_ZWJ, ''))) return name
  const kept = new Set<number>()
  for (const m of name.matchAll(EMOJI_ZWJ)) kept.add(m.index)
  return name.replace(INVISIBLE_ALL, (ch, at: number) => (kept.has(at) ? ch : escapeChar(ch)))
}

/** A line for the terminal: every control, format or bidi character written as `\u{1B}`, so text from a name cannot move the cursor or turn the line around. */
export function terminalText(line: string): string {
  return line.replace(INVISIBLE_ALL, escapeChar)
}

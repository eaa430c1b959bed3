/**
 * Archive text (pure): how a line becomes tokens (`unicode61` words; CJK runs as overlapping bigrams)
 * and how a query becomes a safe FTS5 expression — every term a quoted phrase of letter and digit
 * tokens, so FTS5 syntax in a query is never an operator. Deliberately does not rank or touch SQLite.
 */

/** Han, Hiragana, Katakana, Hangul, CJK punctuation-free ideographs. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu
/** What FTS5's unicode61 keeps as token characters (letters, digits, private use), minus CJK. */
const WORD = /[\p{L}\p{N}\p{Co}]+/gu

/** Longest query text read (longer queries are cut, and the answer says so). */
export const MAX_QUERY_CHARS = 300
/** Most terms (words or quoted phrases) one query uses. */
export const MAX_TERMS = 8
/** Most tokens in one quoted phrase. */
const MAX_PHRASE_TOKENS = 32

export function hasCjk(text: string): boolean {
  return CJK.test(text)
}

function bigrams(run: string): string[] {
  const chars = Array.from(run)
  if (chars.length === 1) return chars
  const out: string[] = []
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
  return out
}

/**
 * The text FTS5 indexes for one line: the line itself, with each CJK run replaced by its bigrams
 * and its last character (so a one-character query finds a character at the end of a run).
 */
export function indexBody(text: string): string {
  if (!hasCjk(text)) return text
  return text.replace(CJK_RUN, (run) => {
    const chars = Array.from(run)
    const grams = bigrams(run)
    if (chars.length > 1) grams.push(chars.at(-1)!)
    return ` ${grams.join(' ')} `
  })
}

/** One query term: a word or a quoted phrase, as tokens. */
export interface QueryTerm {
  /** What the Bot typed, for the answer's wording. */
  label: string
  /** Tokens, in order (adjacent in the text). */
  tokens: string[]
  /** Match tokens that start with the (single) token too. */
  prefix: boolean
}

export interface ParsedQuery {
  terms: QueryTerm[]
  /** Parts of the query that were dropped, said in the answer. */
  notes: string[]
}

/** Tokens of a piece of query text, split as the index splits it (words; CJK bigrams). */
export function queryTokens(text: string): string[] {
  const out: string[] = []
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    let rest = 0
    for (const m of word.matchAll(CJK_RUN)) {
      if (m.index > rest) out.push(word.slice(rest, m.index))
      out.push(...bigrams(m[0]))
      rest = m.index + m[0].length
    }
    if (rest < word.length) out.push(word.slice(rest))
  }
  return out
}

/** Split a query into terms: quoted phrases (balanced `"` pairs) and whitespace-separated words. */
export function parseQuery(raw: string): ParsedQuery {
  const notes: string[] = []
  let text = raw.normalize('NFC')
  if (text.length > MAX_QUERY_CHARS) {
    text = text.slice(0, MAX_QUERY_CHARS)
    notes.push(`the query was cut to its first ${MAX_QUERY_CHARS} characters`)
  }
  const pieces: { label: string; phrase: boolean }[] = []
  let rest = ''
  let at = 0
  for (const m of text.matchAll(/"([^"]*)"/g)) {
    rest += `${text.slice(at, m.index)} `
    pieces.push({ label: m[1]!.trim(), phrase: true })
    at = m.index + m[0].length
  }
  rest += text.slice(at)
  for (const word of rest.split(/\s+/)) if (word) pieces.push({ label: word, phrase: false })
  const terms: QueryTerm[] = []
  const seen = new Set<string>()
  for (const piece of pieces) {
    const tokens = queryTokens(piece.label).slice(0, MAX_PHRASE_TOKENS)
    if (tokens.length === 0) continue
    const key = tokens.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    // A single word may widen to words it starts ("deploy" → "deployment") when it is the whole
    // query and the exact word finds nothing; a single CJK character always matches the bigrams it starts (it is no token
    // of its own inside a run). Phrases and CJK runs match exactly.
    const only = tokens.length === 1 ? tokens[0]! : undefined
    const cjk = only !== undefined && hasCjk(only)
    const prefix = !piece.phrase && only !== undefined && (cjk ? Array.from(only).length === 1 : only.length >= 3)
    terms.push({ label: piece.label, tokens, prefix })
  }
  if (terms.length > MAX_TERMS) {
    notes.push(`only the first ${MAX_TERMS} terms were used`)
    terms.length = MAX_TERMS
  }
  return { terms, notes }
}

/**
 * One term as an FTS5 expression; `widen` lets a prefix term match words it starts. Tokens hold
 * only letters and digits (see `queryTokens`), so quoting them cannot carry FTS5 syntax; `"` is
 * doubled anyway, as FTS5 requires.
 */
export function termExpression(term: QueryTerm, widen = false): string {
  const phrase = `"${term.tokens.join(' ').replace(/"/g, '""')}"`
  return widen && term.prefix ? `${phrase} *` : phrase
}

/** All terms (implicit AND). */
export function allTermsExpression(terms: readonly QueryTerm[], widen = false): string {
  return terms.map((t) => termExpression(t, widen)).join(' AND ')
}

/** Where the first term occurs in a line (case-insensitive), for excerpts; -1 when not found. */
export function firstHit(text: string, terms: readonly QueryTerm[]): number {
  const lower = text.toLowerCase()
  let best = -1
  for (const term of terms) {
    const needle = hasCjk(term.tokens[0]!) ? term.label.toLowerCase() : term.tokens[0]!
    const i = lower.indexOf(needle)
    if (i >= 0 && (best < 0 || i < best)) best = i
  }
  return best
}

/** At most `max` characters of `text` around position `at`, with … where cut. */
export function excerpt(text: string, at: number, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat.length <= max) return flat
  const pos = at < 0 ? 0 : Math.min(at, flat.length)
  const start = Math.max(0, Math.min(pos - Math.floor(max / 3), flat.length - max))
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + max)}${start + max < flat.length ? '…' : ''}`
}

/**
 * Recall (pure): search a Bot's own and the team's memory, topic files included, for a query.
 * Terms are the query's words (Latin letters/digits, 2+ characters) and its Han runs (also as
 * pairs of characters, since Chinese has no spaces); an entry matches by how many terms it holds.
 * Deliberately narrow: no ranking model, no stemming; at most `max` lines in the answer.
 */
import { parseEntries } from './format.ts'
import type { ScopeFiles } from './files.ts'

export interface Hit {
  where: string
  text: string
  added?: string | undefined
  score: number
}

export function terms(query: string): string[] {
  const out = new Set<string>()
  for (const w of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (/\p{Script=Han}/u.test(w)) {
      for (const run of w.match(/\p{Script=Han}+/gu) ?? []) {
        out.add(run)
        for (let i = 0; i + 2 <= run.length; i++) out.add(run.slice(i, i + 2))
      }
      for (const rest of w.split(/\p{Script=Han}+/u)) if (rest.length >= 2) out.add(rest)
    } else if (w.length >= 2) out.add(w)
  }
  return [...out]
}

export function search(scopes: readonly { label: string; files: ScopeFiles }[], query: string, max = 20): Hit[] {
  const want = terms(query)
  const hits: Hit[] = []
  for (const { label, files } of scopes) {
    const sources: [string, string][] = [
      [`${label} MEMORY.md`, files.memory],
      ...Object.entries(files.topics).map(([t, text]): [string, string] => [`${label} topic ${t}`, text]),
    ]
    for (const [where, text] of sources) {
      for (const entry of parseEntries(text)) {
        const lower = entry.text.toLowerCase()
        const score = want.length ? want.filter((t) => lower.includes(t)).length : 1
        if (score > 0) hits.push({ where, text: entry.text, added: entry.meta.added, score })
      }
    }
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, max)
}

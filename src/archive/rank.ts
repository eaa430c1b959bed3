/**
 * Ranking of search candidates (pure): BM25 (k1 1.2, b 0.75) with term presence for the frequency,
 * over the bounded candidates the reader fetched; newest first among equal scores; when no line has
 * every term, by how many it has. Deliberately does not fetch candidates or format anything.
 */

export interface Candidate {
  id: number
  score: number
}

const quantum = (score: number) => Math.round(score * 1e6)

export const K1 = 1.2
export const B = 0.75

/** BM25's inverse document frequency of a term found in `df` of `rows` lines. */
export function idf(rows: number, df: number): number {
  return Math.log(1 + (Math.max(rows, df) - df + 0.5) / (df + 0.5))
}

/** A line's BM25 score for terms present in it (negated: lower is better). */
export function bm25(idfs: readonly number[], length: number, avgLength: number): number {
  const norm = (K1 + 1) / (1 + K1 * (1 - B + (B * length) / avgLength))
  return -idfs.reduce((sum, w) => sum + w * norm, 0)
}

/** Best first. */
export function rankAll(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => quantum(a.score) - quantum(b.score) || b.id - a.id)
}

export interface PartialHit {
  id: number
  /** Indexes of the terms the line has. */
  terms: number[]
  score: number
}

/** Merge per-term candidate lists (index = term number) into lines ranked by terms matched. */
export function rankMost(perTerm: readonly (readonly Candidate[])[]): PartialHit[] {
  const byId = new Map<number, PartialHit>()
  perTerm.forEach((list, term) => {
    for (const c of list) {
      const hit = byId.get(c.id) ?? { id: c.id, terms: [], score: 0 }
      if (!hit.terms.includes(term)) {
        hit.terms.push(term)
        hit.score += c.score
      }
      byId.set(c.id, hit)
    }
  })
  return [...byId.values()].sort((a, b) => b.terms.length - a.terms.length || quantum(a.score) - quantum(b.score) || b.id - a.id)
}

/**
 * Ranking of search candidates. Pure.
 *
 * All-terms hits: by BM25 (FTS5's score, lower is better), newest first among equal scores
 * (scores equal to 1e-6 count as equal, so float noise does not decide). When no line has all
 * terms: by how many terms a line has, then the summed BM25 of those terms, then newest first.
 *
 * Deliberately does not: fetch candidates (the reader asks the index for the newest N matches of
 * each expression — that bound is what keeps a common word's cost flat) or format anything.
 */

export interface Candidate {
  id: number
  score: number
}

const quantum = (score: number) => Math.round(score * 1e6)

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

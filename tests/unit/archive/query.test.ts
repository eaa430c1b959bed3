// The query sanitiser (text.ts) and the ranker (rank.ts): pure, plus the real FTS5 on :memory: to
// prove that every expression the sanitiser emits is valid FTS5 and matches literally.
import { describe, expect, it } from 'vitest'
import { allTermsExpression, excerpt, indexBody, MAX_QUERY_CHARS, MAX_TERMS, parseQuery, queryTokens, termExpression } from '../../../src/archive/text.ts'
import { bm25, idf, rankAll, rankMost } from '../../../src/archive/rank.ts'
import { loadSqlite } from '../../../src/core/sqlite.ts'

function fts(lines: string[]) {
  const load = loadSqlite()
  if (!load.ok) throw new Error(load.problem.message)
  const db = load.driver.open(':memory:')
  db.exec("CREATE VIRTUAL TABLE t USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')")
  const insert = db.prepare('INSERT INTO t(rowid, body) VALUES (?, ?)')
  for (const [i, line] of lines.entries()) insert.run(i + 1, indexBody(line))
  return (expression: string) => (db.prepare('SELECT rowid AS id FROM t WHERE t MATCH ? ORDER BY rowid').all(expression) as { id: number }[]).map((r) => r.id)
}

describe('query sanitiser', () => {
  it('splits words and quoted phrases; a single word of 3+ letters may widen to a prefix, a phrase is exact', () => {
    const { terms } = parseQuery('Deploy "staging server" ok')
    expect(terms).toEqual([
      { label: 'staging server', tokens: ['staging', 'server'], prefix: false },
      { label: 'Deploy', tokens: ['deploy'], prefix: true },
      { label: 'ok', tokens: ['ok'], prefix: false },
    ])
    expect(allTermsExpression(terms)).toBe('"staging server" AND "deploy" AND "ok"')
    expect(allTermsExpression(terms, true)).toBe('"staging server" AND "deploy" * AND "ok"')
  })

  it('turns CJK into bigrams for the index and the query; a single character is a prefix', () => {
    expect(indexBody('用全文检索吧')).toBe(' 用全 全文 文检 检索 索吧 吧 ')
    expect(indexBody('v2版本 ok')).toBe('v2 版本 本  ok')
    expect(queryTokens('全文检索')).toEqual(['全文', '文检', '检索'])
    expect(queryTokens('v2版本')).toEqual(['v2', '版本'])
    expect(parseQuery('周').terms[0]).toEqual({ label: '周', tokens: ['周'], prefix: true })
  })

  it('emits only valid FTS5 for hostile input, matching the characters as data', () => {
    const search = fts(['a NEAR b', 'heron and crane', '会话日志全文检索', 'x-ray: body', 'just text'])
    const hostile = [
      '"',
      '*',
      'NEAR(',
      'NEAR(a b, 2)',
      'a OR b',
      '-x',
      'body:heron',
      '^heron',
      '"unbalanced',
      'AND',
      '(',
      ')',
      '""',
      '*"*',
      '\\',
      "'; DROP TABLE t; --",
      'x'.repeat(5000),
      '\u0000',
      '😀',
    ]
    for (const q of hostile) {
      const { terms } = parseQuery(q)
      if (terms.length === 0) continue
      expect(() => search(allTermsExpression(terms)), q.slice(0, 20)).not.toThrow()
      expect(() => search(allTermsExpression(terms, true))).not.toThrow()
      for (const t of terms) expect(() => search(termExpression(t, true))).not.toThrow()
    }
    expect(search(allTermsExpression(parseQuery('NEAR(').terms))).toEqual([1]) // the word "near"
    expect(search(allTermsExpression(parseQuery('body:heron').terms))).toEqual([]) // not a column filter: words body AND heron
    expect(search(allTermsExpression(parseQuery('x-ray').terms))).toEqual([4])
    expect(search(allTermsExpression(parseQuery('全文检索').terms))).toEqual([3])
    expect(search(allTermsExpression(parseQuery('检全').terms))).toEqual([])
  })

  it('bounds the query: characters and terms, saying so; empty when nothing is searchable', () => {
    const long = parseQuery('word '.repeat(200))
    expect(long.notes).toContain(`the query was cut to its first ${MAX_QUERY_CHARS} characters`)
    expect(long.terms).toHaveLength(1) // duplicates collapse
    const many = parseQuery(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '))
    expect(many.terms).toHaveLength(MAX_TERMS)
    expect(many.notes).toContain(`only the first ${MAX_TERMS} terms were used`)
    expect(parseQuery('" * - ( ) :').terms).toEqual([])
  })

  it('cuts excerpts around a position, marking the cuts', () => {
    const text = `${'a '.repeat(300)}NEEDLE${' b'.repeat(300)}`
    const e = excerpt(text, text.indexOf('NEEDLE'), 100)
    expect(e).toContain('NEEDLE')
    expect(e.startsWith('…') && e.endsWith('…')).toBe(true)
    expect(excerpt('short  text', 0, 100)).toBe('short text')
  })
})

describe('ranker', () => {
  it('scores BM25 with term presence: shorter lines and rarer terms score better (lower)', () => {
    expect(idf(1000, 5)).toBeGreaterThan(idf(1000, 500))
    expect(idf(10, 10)).toBeGreaterThan(0)
    expect(bm25([1], 5, 10)).toBeLessThan(bm25([1], 40, 10))
    expect(bm25([idf(1000, 5)], 10, 10)).toBeLessThan(bm25([idf(1000, 500)], 10, 10))
    expect(bm25([1, 1], 10, 10)).toBeCloseTo(2 * bm25([1], 10, 10))
  })

  it('ranks by BM25, newest first among equal scores', () => {
    expect(
      rankAll([
        { id: 1, score: -2 },
        { id: 2, score: -1 },
        { id: 3, score: -2.0000000001 },
        { id: 4, score: -3 },
      ]).map((c) => c.id),
    ).toEqual([4, 3, 1, 2])
  })

  it('without an all-terms hit, ranks by terms matched, then score, then recency', () => {
    const ranked = rankMost([
      [
        { id: 1, score: -1 },
        { id: 2, score: -1 },
        { id: 5, score: -1 },
      ],
      [
        { id: 2, score: -1 },
        { id: 3, score: -4 },
      ],
      [
        { id: 2, score: -1 },
        { id: 1, score: -1 },
      ],
    ])
    expect(ranked.map((h) => [h.id, h.terms.length])).toEqual([
      [2, 3],
      [1, 2],
      [3, 1],
      [5, 1],
    ])
  })
})

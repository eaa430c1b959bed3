// Proves better-sqlite3 is built against Node 22's headers: it loads under the Node 22 runtime that
// runs the suite (ABI 127) and serves an FTS5 trigram table (substring + CJK queries).
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'

describe('better-sqlite3 under Node 22', () => {
  it('opens an FTS5 trigram table and answers substring and CJK queries', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22)
    const db = new Database(':memory:')
    db.exec("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='trigram')")
    const insert = db.prepare('INSERT INTO docs(body) VALUES (?)')
    for (const body of ['DeepSeek Harness plugin bundle', '会话日志 全文检索 测试', 'unrelated text']) insert.run(body)
    const match = db.prepare('SELECT body FROM docs WHERE docs MATCH ? ORDER BY rank')
    expect(match.all('"ness plu"')).toEqual([{ body: 'DeepSeek Harness plugin bundle' }])
    expect(match.all('"全文检"')).toEqual([{ body: '会话日志 全文检索 测试' }])
    db.close()
  })
})

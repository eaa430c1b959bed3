// read_own_chat's answer over a real in-memory index: ranking, widening, hiding the asking turn.
import { describe, expect, it } from 'vitest'
import { ArchiveIndex } from '../../../src/archive/index-db.ts'
import { readOwnChat } from '../../../src/archive/reader.ts'
import { loadSqlite } from '../../../src/core/sqlite.ts'

function chat(texts: string[]) {
  const load = loadSqlite()
  if (!load.ok) throw new Error(load.problem.message)
  const index = ArchiveIndex.open(load.driver, ':memory:', true)!
  const mark = index.register('s1', 'bot:b1', 1)
  index.append(
    mark,
    texts.map((text, seq) => ({ seq, time: Date.UTC(2026, 0, 1, 12, seq), who: 'user' as const, text })),
    texts.length,
    'x',
  )
  return (args: { query?: string }, hide?: number) =>
    readOwnChat(index, { botId: 'b1', args, parts: [{ sid: 's1', part: 1 }], ...(hide === undefined ? {} : { hide: { sid: 's1', fromSeq: hide } }) })
}
const seqs = (answer: string) => [...answer.matchAll(/\[part 1 #(\d+) /g)].map((m) => Number(m[1]))

describe('read_own_chat answer', () => {
  it('ranks shorter lines first (BM25 length), newest first among equal ones', () => {
    const read = chat(['heron a b c d e f g h', 'heron x', 'heron y', 'nothing here'])
    expect(seqs(read({ query: 'heron' }))).toEqual([2, 1, 0])
  })

  it('widens a one-word query to the words it starts only when the exact word finds nothing', () => {
    const read = chat(['the deployment failed', 'deploy now'])
    expect(seqs(read({ query: 'deploy' }))).toEqual([1])
    const widened = read({ query: 'deplo' })
    expect(widened).toMatch(/^2 line\(s\) of your own chat for "deplo" \(words starting with these\)/)
    expect(read({ query: 'deplo failed' })).toMatch(/^No line of your own chat has all of "deplo", "failed"/) // longer queries stay whole words
  })

  it("never shows the asking turn's own lines", () => {
    const read = chat(['heron once', 'search heron', 'heron result'])
    expect(seqs(read({ query: 'heron' }, 1))).toEqual([0])
    expect(read({}, 1)).toMatch(/^The latest 1 line\(s\)/)
  })
})

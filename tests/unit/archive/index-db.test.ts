// The index file: schema versions, line blocks (packing, reading across blocks), resets.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ArchiveIndex, BLOCK_BYTES, SCHEMA_VERSION } from '../../../src/archive/index-db.ts'
import type { ArchiveLine } from '../../../src/core/log-lines.ts'
import { loadSqlite } from '../../../src/core/sqlite.ts'

const load = loadSqlite()
if (!load.ok) throw new Error(load.problem.message)
const driver = load.driver
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempPath = () => {
  const dir = mkdtempSync(join(tmpdir(), 'archive-index-'))
  dirs.push(dir)
  return join(dir, 'archive.sqlite')
}
const line = (seq: number, text: string): ArchiveLine => ({ seq, time: 60_000 * seq, who: 'user', text })

describe('archive index file', () => {
  it('rebuilds an index of another schema version for the writer; a reader gets none', () => {
    const path = tempPath()
    const old = driver.open(path)
    old.exec('CREATE TABLE lines(id INTEGER PRIMARY KEY, text TEXT); PRAGMA user_version = 1')
    old.close()
    expect(ArchiveIndex.open(driver, path, false)).toBeUndefined()
    const index = ArchiveIndex.open(driver, path, true)!
    expect((index.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(SCHEMA_VERSION)
    expect(index.db.prepare("SELECT name FROM sqlite_master WHERE name = 'lines'").all()).toEqual([])
    index.close()
    expect(ArchiveIndex.open(driver, path, false)).toBeDefined()
  })

  it('packs small slices into shared blocks and reads lines across block boundaries', () => {
    const index = ArchiveIndex.open(driver, tempPath(), true)!
    const mark = index.register('s1', 'bot:b1', 1)
    const text = (seq: number) => `line ${seq} ${'x'.repeat(300)}`
    for (let seq = 0; seq < 200; seq += 2) index.append(mark, [line(seq, text(seq)), line(seq + 1, text(seq + 1))], seq + 2, `${seq + 1}`)
    const blocks = (index.db.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }).n
    expect(blocks).toBeLessThan(200 / Math.floor(BLOCK_BYTES / 400)) // not one block per slice
    expect(index.line(mark.id * 2 ** 24 + 137)?.text).toBe(text(137))
    expect(index.walk(mark.id, 100, 1, 50).map((l) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i))
    expect(index.walk(mark.id, 100, -1, 50).map((l) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 99 - i))
    expect(index.stats().lines).toBe(200)
    index.close()
  })

  it("reset forgets a Session's lines in the FTS table and the blocks", () => {
    const index = ArchiveIndex.open(driver, tempPath(), true)!
    const mark = index.register('s1', 'bot:b1', 1)
    index.append(mark, [line(0, 'heron alpha'), line(1, 'heron beta')], 2, 'x')
    const p = index.partitionId('bot:b1')!
    expect(index.matches(p, '"heron"', 10)).toHaveLength(2)
    expect(index.corpus(p)).toEqual({ rows: 2, avgLength: 2 })
    expect([...index.lengths(p, index.matches(p, '"heron"', 10)).values()]).toEqual([2, 2])
    index.reset(mark)
    expect(index.matches(p, '"heron"', 10)).toHaveLength(0)
    expect(index.walk(mark.id, 0, 1, 10)).toEqual([])
    expect(index.mark('s1')).toMatchObject({ through: 0, last: '' })
    index.append(mark, [line(0, 'crane')], 1, 'y')
    expect(index.matches(p, '"crane"', 10)).toHaveLength(1)
    index.close()
  })

  it('notices that its file was deleted', () => {
    const path = tempPath()
    const index = ArchiveIndex.open(driver, path, true)!
    expect(index.stillOnDisk()).toBe(true)
    rmSync(path)
    expect(index.stillOnDisk()).toBe(false)
    index.close()
  })
})

// The post log (file I/O) and the transcript over it: records validated, a torn last line skipped,
// rotation keeps the newest records with their seq, a rotation cut by a crash leaves no temp, files
// 0600 whatever the umask, ids checked.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PostLog, POST_TEXT_MAX } from '../../../src/rooms/post-log.ts'
import { Transcript } from '../../../src/rooms/transcript.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'post-log-'))
  dirs.push(d)
  return d
}
const warnings: string[] = []
const transcriptOn = (dir: string) =>
  new Transcript(
    new PostLog(dir),
    () => true,
    (what) => warnings.push(what),
  )

describe('post log', () => {
  it('appends 0600 records in a 0700 folder whatever the umask; a torn last line is skipped', () => {
    const dir = fresh()
    const old = process.umask(0o000)
    try {
      const t = transcriptOn(dir)
      t.load('group-1', [], undefined, () => undefined)
      t.addPost('group-1', { id: 'p1', round: 'p1', from: 'user', name: 'User', text: 'hello' })
      t.addTurn('group-1', 'p1', 'bot-1', 'pass', 1)
    } finally {
      process.umask(old)
    }
    const file = join(dir, 'rooms', 'group-1.jsonl')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'rooms')).mode & 0o777).toBe(0o700)
    appendFileSync(file, '{"t":"post","seq":1,"id":"p2","rou') // a crash mid-append
    const again = transcriptOn(dir)
    again.load('group-1', ['bot-1'], {}, () => undefined)
    expect(again.posts('group-1').map((p) => p.id)).toEqual(['p1'])
    expect(again.cursor('group-1', 'bot-1')).toBe(1) // from the logged turn, newer than the saved cursors
    expect(again.round('group-1', 'p1')).toMatchObject({ ended: false, turns: [{ botId: 'bot-1', outcome: 'pass' }] })
  })

  it('a post is recorded once per id; long texts are clipped; bad group ids are refused', () => {
    const dir = fresh()
    const t = transcriptOn(dir)
    t.load('group-2', [], undefined, () => undefined)
    t.addPost('group-2', { id: 'p1', round: 'p1', from: 'user', name: 'User', text: 'x'.repeat(POST_TEXT_MAX + 10) })
    t.addPost('group-2', { id: 'p1', round: 'p1', from: 'user', name: 'User', text: 'again' })
    expect(t.posts('group-2')).toHaveLength(1)
    expect(t.posts('group-2')[0]!.text.endsWith('… (cut)')).toBe(true)
    expect(() => new PostLog(dir).file('../state')).toThrow(/invalid group id/)
  })

  it('rotation keeps the newest records within the size limit, seq unchanged', () => {
    const dir = fresh()
    const maxBytes = 64 * 1024
    const t = new Transcript(
      new PostLog(dir, { maxBytes }),
      () => true,
      (what) => warnings.push(what),
    )
    t.load('group-3', [], undefined, () => undefined)
    const text = 'y'.repeat(1000)
    const n = 300 // ~300 KB written through a 64 KB limit
    for (let i = 0; i < n; i++) t.addPost('group-3', { id: `p${i}`, round: `p${i}`, from: 'user', name: 'User', text })
    expect(statSync(join(dir, 'rooms', 'group-3.jsonl')).size).toBeLessThanOrEqual(maxBytes)
    const lines = readFileSync(join(dir, 'rooms', 'group-3.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ id: `p${n - 1}`, seq: n - 1 })
    const again = transcriptOn(dir)
    again.load('group-3', [], undefined, () => undefined)
    expect(again.end('group-3')).toBe(n)
    expect(again.posts('group-3').at(-1)!.seq).toBe(n - 1)
    expect(warnings).toEqual([])
  })

  it('a rotation cut by a crash leaves its temp file; the next writer removes it and keeps the whole log', () => {
    const dir = fresh()
    mkdirSync(join(dir, 'rooms'), { mode: 0o700 })
    const line = `${JSON.stringify({ t: 'post', seq: 0, id: 'p0', round: 'p0', from: 'user', name: 'User', text: 'kept', at: 'now' })}\n`
    writeFileSync(join(dir, 'rooms', 'group-5.jsonl'), line, { mode: 0o600 })
    writeFileSync(join(dir, 'rooms', 'group-5.jsonl.3735928559'), 'half a rotation') // writePrivateFileSync's temp
    writeFileSync(join(dir, 'rooms', 'group-5.jsonl.4242.tmp'), 'half a rotation') // the temp name before it
    const t = transcriptOn(dir)
    t.load('group-5', [], undefined, () => undefined)
    t.addPost('group-5', { id: 'p1', round: 'p1', from: 'user', name: 'User', text: 'next' })
    expect(readdirSync(join(dir, 'rooms'))).toEqual(['group-5.jsonl'])
    expect(t.posts('group-5').map((p) => [p.seq, p.text])).toEqual([
      [0, 'kept'],
      [1, 'next'],
    ])
  })

  it('a room written before the post log is seeded once from its rendered history, seq = index', () => {
    const dir = fresh()
    const t = transcriptOn(dir)
    t.load('group-4', ['a'], { a: 2 }, () => ({
      items: [
        { role: 'user', text: 'hi', userPost: true },
        { role: 'assistant', text: '**Ada:** hello' },
        { role: 'user', text: 'more', userPost: true },
      ],
      nameToId: (n) => (n === 'Ada' ? 'a' : undefined),
    }))
    expect(t.posts('group-4').map((p) => [p.seq, p.from, p.text])).toEqual([
      [0, 'user', 'hi'],
      [1, 'a', 'hello'],
      [2, 'user', 'more'],
    ])
    expect(t.cursor('group-4', 'a')).toBe(2)
    const again = transcriptOn(dir)
    again.load('group-4', [], undefined, () => {
      throw new Error('not seeded twice')
    })
    expect(again.posts('group-4')).toHaveLength(3)
  })
})

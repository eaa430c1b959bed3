// The backup archive codec: what it writes reads back byte for byte, and a hostile or damaged
// archive is refused with a reason before any entry is handed out.
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ARCHIVE_MAGIC, ArchiveError, badEntryPath, decodeArchive, encodeArchive } from '../../../src/backup/format.ts'

const manifest = { path: 'manifest.json', data: Buffer.from('{"format":1}') }
const raw = (body: string) => gzipSync(Buffer.from(ARCHIVE_MAGIC + body))
const entryLine = (path: string, data: string) => `${JSON.stringify({ path, size: Buffer.byteLength(data) })}\n${data}\n`

describe('backup archive format', () => {
  it('reads back every entry byte for byte, binary and newlines included', () => {
    const binary = Buffer.from([0, 10, 255, 10, 13, 0x1f, 0x8b])
    const entries = [
      manifest,
      { path: 'bot/state.json', data: Buffer.from('{\n"a": 1\n}\n') },
      { path: 'bot/workspace/blob.bin', data: binary },
      { path: 'sessions/0.jsonl', data: Buffer.alloc(0) },
    ]
    const back = decodeArchive(encodeArchive(entries))
    expect(back.map((e) => e.path)).toEqual(entries.map((e) => e.path))
    for (const [i, e] of back.entries()) expect(Buffer.from(e.data).equals(entries[i]!.data)).toBe(true)
  })

  it('refuses to write paths that could leave the restore target, and duplicates', () => {
    for (const path of ['/etc/passwd', 'bot/../../x', 'bot//x', 'bot/./x', 'elsewhere/x', 'bot\\x', 'bot/a\0b']) {
      expect(badEntryPath(path), path).toBeDefined()
      expect(() => encodeArchive([manifest, { path, data: Buffer.from('x') }]), path).toThrow(ArchiveError)
    }
    expect(() => encodeArchive([manifest, { path: 'bot/a', data: Buffer.from('') }, { path: 'bot/a', data: Buffer.from('') }])).toThrow(/duplicate/)
    expect(() => encodeArchive([{ path: 'bot/a', data: Buffer.from('') }])).toThrow(/manifest.json/)
  })

  it('refuses archives that are not gzip, lack the header, escape the target, lie about sizes or are cut short', () => {
    expect(() => decodeArchive(Buffer.from('plain text'))).toThrow(/not a Bot Team backup/)
    expect(() => decodeArchive(gzipSync(Buffer.from('something else\n')))).toThrow(/header/)
    expect(() => decodeArchive(raw(entryLine('manifest.json', '{}') + entryLine('bot/../../escape', 'x')))).toThrow(/"\.\."/)
    expect(() => decodeArchive(raw(entryLine('manifest.json', '{}') + `{"path":"bot/a","size":-1}\nx\n`))).toThrow(/bad size/)
    expect(() => decodeArchive(raw(entryLine('manifest.json', '{}') + `{"path":"bot/a","size":50}\nshort\n`))).toThrow(/truncated/)
    expect(() => decodeArchive(raw(entryLine('manifest.json', '{}') + 'not json\n'))).toThrow(/not JSON/)
    expect(() => decodeArchive(raw(entryLine('bot/a', 'x')))).toThrow(/manifest.json/)
    const whole = encodeArchive([manifest, { path: 'bot/a', data: Buffer.from('hello') }])
    expect(() => decodeArchive(whole.subarray(0, whole.length - 6))).toThrow(ArchiveError)
  })
})

import { describe, expect, it } from 'vitest'
import { brokenCopyName, classifyRead, isTempLeftover } from '../../../src/store/load.ts'
import { readFileSync } from 'node:fs'
import { STATE_VERSION } from '../../../src/store/schema.ts'
import { sampleState } from './fixtures.ts'

const bytes = (s: string | Uint8Array) => ({ kind: 'bytes' as const, bytes: typeof s === 'string' ? new TextEncoder().encode(s) : s })
const good = JSON.stringify(sampleState())

describe('classifyRead', () => {
  it('missing file → empty team', () => {
    expect(classifyRead({ kind: 'missing' })).toEqual({ kind: 'empty' })
  })

  it('valid file → ok with the parsed state', () => {
    const c = classifyRead(bytes(good))
    expect(c.kind).toBe('ok')
    if (c.kind === 'ok') expect(c.state).toEqual(sampleState())
  })

  const corrupt: Array<[string, string | Uint8Array]> = [
    ['truncated JSON', good.slice(0, good.length / 2)],
    ['random bytes', new Uint8Array([0xff, 0xfe, 0x00, 0x13, 0x88, 0x9a, 0x01])],
    ['empty file', ''],
    ['whitespace only', '  \n'],
    ['JSON array', '[1,2,3]'],
    ['JSON null', 'null'],
    ['object of the wrong shape', '{"hello":"world"}'],
    ['wrong field types', JSON.stringify({ ...sampleState(), revision: 'seven', bots: [] })],
    ['version 0', JSON.stringify({ ...sampleState(), version: 0 })],
  ]
  it.each(corrupt)('%s → corrupt (set aside, start empty)', (_name, content) => {
    const c = classifyRead(bytes(content))
    expect(c.kind).toBe('corrupt')
    if (c.kind === 'corrupt') expect(c.problem).toMatch(/state\.json/)
  })

  it('newer version → read-only, naming the version', () => {
    const c = classifyRead(bytes(JSON.stringify({ ...sampleState(), version: 9 })))
    expect(c).toMatchObject({ kind: 'read-only', reason: 'newer-version', version: 9 })
  })

  it.each(['EACCES', 'EISDIR', 'EIO'])('read error %s → read-only unreadable', (code) => {
    const c = classifyRead({ kind: 'error', code, message: 'nope' })
    expect(c).toMatchObject({ kind: 'read-only', reason: 'unreadable' })
    if (c.kind === 'read-only') expect(c.problem).toContain(code)
  })

  it('an older version is migrated through the chain before validation', () => {
    const v1 = readFileSync(new URL('../../fixtures/state-v1-0.1.0.json', import.meta.url))
    const c = classifyRead(bytes(v1))
    expect(c).toMatchObject({ kind: 'ok' })
    if (c.kind === 'ok') expect(c.state.version).toBe(STATE_VERSION)
    expect(classifyRead(bytes(v1), [], STATE_VERSION)).toMatchObject({ kind: 'corrupt', problem: expect.stringMatching(/no migration from version 1/) })
  })
})

describe('file names', () => {
  it('broken copies carry a filesystem-safe ISO time', () => {
    expect(brokenCopyName(new Date('2025-03-04T05:06:07.089Z'))).toBe('state.json.broken-2025-03-04T05-06-07.089Z')
  })
  it('recognises the temp files of unfinished saves only', () => {
    expect(isTempLeftover('state.json.3735928559')).toBe(true)
    expect(isTempLeftover('state.json')).toBe(false)
    expect(isTempLeftover('state.json.broken-2025-03-04T05-06-07.089Z')).toBe(false)
    expect(isTempLeftover('state.lock')).toBe(false)
    expect(isTempLeftover('archive.json.123')).toBe(false)
  })
})

// The role frozen with a Session part, on disk: a round trip, 0600, and anything that is not a
// record (torn, foreign, too long) read as none, so the part is frozen anew rather than trusted.
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PartRoles, TEAM_TEXT_MAX } from '../../../src/roster/part-role.ts'

const dir = () => mkdtempSync(join(tmpdir(), 'bot-team-parts-'))
const record = { role: { main: true, groups: 'admin' as const, kind: 'own' as const }, team: 'You are a Main Bot.' }

describe('PartRoles', () => {
  it('writes a record owner-only and reads it back the same', async () => {
    const root = dir()
    const parts = new PartRoles(root)
    await parts.write('session-1', record)
    expect(parts.read('session-1')).toEqual(record)
    expect(statSync(join(root, 'parts', 'session-1.json')).mode & 0o777).toBe(0o600)
    expect(parts.read('session-2')).toBeUndefined()
  })

  it('reads a torn file, a foreign shape, an unknown field or an oversized team text as none', () => {
    const root = dir()
    mkdirSync(join(root, 'parts'))
    const parts = new PartRoles(root)
    const put = (id: string, text: string) => writeFileSync(join(root, 'parts', `${id}.json`), text)
    put('torn', '{"role":{"main":tr')
    put('foreign', JSON.stringify({ role: { main: 'yes', groups: 'admin', kind: 'own' }, team: '' }))
    put('extra', JSON.stringify({ ...record, tools: ['manage_bot'] }))
    put('long', JSON.stringify({ ...record, team: 'x'.repeat(TEAM_TEXT_MAX + 1) }))
    for (const id of ['torn', 'foreign', 'extra', 'long']) expect(parts.read(id), id).toBeUndefined()
  })
})

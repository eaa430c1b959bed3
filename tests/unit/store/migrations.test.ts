import { describe, expect, it } from 'vitest'
import { type Migration, MIGRATIONS, exampleMigrationV1toV2, migrate } from '../../../src/store/migrations.ts'
import { STATE_VERSION } from '../../../src/store/schema.ts'
import { sampleState } from './fixtures.ts'

describe('migration chain', () => {
  it('the production chain reaches the current version from every older version', () => {
    for (let v = 1; v < STATE_VERSION; v++) expect(MIGRATIONS.some(m => m.from === v)).toBe(true)
    const r = migrate(sampleState(), MIGRATIONS, STATE_VERSION)
    expect(r).toMatchObject({ ok: true, from: STATE_VERSION, steps: [] })
  })

  it('example v1 → v2 moves preferences.theme into ui.theme and leaves the input alone', () => {
    const v1 = sampleState()
    const before = JSON.stringify(v1)
    const r = migrate(v1, [exampleMigrationV1toV2], 2)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.doc.version).toBe(2)
    expect(r.doc.ui).toEqual({ theme: 'dark' })
    expect(r.doc.preferences).toEqual({ nested: { a: [1, 2] } })
    expect(r.doc.bots).toEqual(v1.bots)
    expect(r.from).toBe(1)
    expect(r.steps).toEqual([exampleMigrationV1toV2.describe])
    expect(JSON.stringify(v1)).toBe(before)
  })

  it('chains several steps in order', () => {
    const v2to3: Migration = { from: 2, describe: 'v2 → v3', up: d => ({ ...d, version: 3, three: true }) }
    const r = migrate(sampleState(), [v2to3, exampleMigrationV1toV2], 3)
    expect(r).toMatchObject({ ok: true, from: 1, doc: { version: 3, three: true, ui: { theme: 'dark' } } })
  })

  it('reports a newer document instead of migrating it', () => {
    expect(migrate({ ...sampleState(), version: 5 }, MIGRATIONS, 1)).toEqual({ ok: false, kind: 'newer', version: 5 })
  })

  it('refuses gaps, bad steps and documents without a version', () => {
    expect(migrate(sampleState(), [], 2)).toMatchObject({ ok: false, kind: 'invalid', problem: 'no migration from version 1' })
    const wrong: Migration = { from: 1, describe: 'bad', up: d => ({ ...d }) }
    expect(migrate(sampleState(), [wrong], 2)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate({ bots: {} }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate([1, 2], MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate({ version: '1' }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
  })
})

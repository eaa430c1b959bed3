// The migration chain on real files: every shipped schema version has a fixture under
// fixtures/state-v<N>.json that must still load through the production chain, and the example
// v1 → v2 step is run on the v1 fixture and validated against a v2 schema, so a broken chain
// (a missing step, a step that forgets the version, a step that drops data) fails here.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { classifyRead } from '../../../src/store/load.ts'
import { type Migration, MIGRATIONS, exampleMigrationV1toV2, migrate } from '../../../src/store/migrations.ts'
import { STATE_VERSION, stateSchema } from '../../../src/store/schema.ts'
import { sampleState } from './fixtures.ts'

const fixtureBytes = (version: number) => fs.readFileSync(new URL(`./fixtures/state-v${version}.json`, import.meta.url))
const fixture = (version: number) => JSON.parse(fixtureBytes(version).toString('utf8')) as Record<string, unknown>

/** What a v2 build would validate: v1 plus a typed `ui` block, with `version: 2`. */
const v2Schema = z.object({ ...stateSchema.shape, version: z.literal(2), ui: z.object({ theme: z.string() }) })

describe('migration chain', () => {
  it.each(Array.from({ length: STATE_VERSION }, (_, i) => i + 1))('the fixture file of shipped version %i loads through the production chain', version => {
    const c = classifyRead({ kind: 'bytes', bytes: fixtureBytes(version) }, MIGRATIONS, STATE_VERSION)
    expect(c.kind).toBe('ok')
    if (c.kind !== 'ok') return
    expect(c.state.version).toBe(STATE_VERSION)
    expect(c.migratedFrom).toBe(version === STATE_VERSION ? undefined : version)
    expect(c.steps).toHaveLength(STATE_VERSION - version)
    expect(Object.keys(c.state.bots)).toEqual(['bot-1', 'bot-2'])
  })

  it('the v1 fixture file, run through the example v1 → v2 step, is a valid v2 team with nothing lost', () => {
    const v1 = fixture(1)
    const before = JSON.stringify(v1)
    const r = migrate(v1, [exampleMigrationV1toV2], 2)
    expect(r).toMatchObject({ ok: true, from: 1, steps: [exampleMigrationV1toV2.describe] })
    if (!r.ok) return
    const v2 = v2Schema.parse(r.doc)
    expect(v2.version).toBe(2)
    expect(v2.ui).toEqual({ theme: 'dark' })
    expect(v2.preferences).toEqual({ sidebar: { collapsed: false } })
    for (const key of ['revision', 'writtenBy', 'bots', 'groups', 'deliveries', 'pendingQuestions', 'nextIds']) {
      expect(v2[key as keyof typeof v2], key).toEqual(v1[key])
    }
    expect(JSON.stringify(v1)).toBe(before) // the input document is not modified
  })

  it('the same v1 fixture does not load as v2 without the step, nor with a step that forgets the version', () => {
    expect(migrate(fixture(1), [], 2)).toMatchObject({ ok: false, kind: 'invalid', problem: 'no migration from version 1' })
    const forgetful: Migration = { from: 1, describe: 'bad', up: d => ({ ...d, ui: { theme: 'x' } }) }
    expect(migrate(fixture(1), [forgetful], 2)).toMatchObject({ ok: false, kind: 'invalid', problem: 'migration from version 1 produced version 1' })
  })

  it('chains several steps in order', () => {
    const v2to3: Migration = { from: 2, describe: 'v2 → v3', up: d => ({ ...d, version: 3, three: true }) }
    const r = migrate(fixture(1), [v2to3, exampleMigrationV1toV2], 3)
    expect(r).toMatchObject({ ok: true, from: 1, steps: [exampleMigrationV1toV2.describe, 'v2 → v3'], doc: { version: 3, three: true, ui: { theme: 'dark' } } })
  })

  it('reports a newer document instead of migrating it', () => {
    expect(migrate({ ...sampleState(), version: 5 }, MIGRATIONS, 1)).toEqual({ ok: false, kind: 'newer', version: 5 })
  })

  it('refuses documents without a usable version', () => {
    expect(migrate({ bots: {} }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate([1, 2], MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate({ version: '1' }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  type Migration,
  MIGRATIONS,
  exampleMigrationV1toV2,
  migrate,
  migrationV1toV2,
  migrationV2toV3,
  migrationV3toV4,
  migrationV4toV5,
  migrationV5toV6,
  migrationV6toV7,
  migrationV7toV8,
} from '../../../src/store/migrations.ts'
import { STATE_VERSION, stateSchema } from '../../../src/store/schema.ts'

/** `bot/state.json` as saved by release 0.1.0 (schema v1), written by that release's own store. */
const fixtureV1 = (): Record<string, unknown> => JSON.parse(readFileSync(new URL('../../fixtures/state-v1-0.1.0.json', import.meta.url), 'utf8'))

/** `bot/state.json` as saved by the schema-v2 build (d2907db), one pending delivery added by hand. */
const fixtureV2 = (): Record<string, unknown> => JSON.parse(readFileSync(new URL('../../fixtures/state-v2-d2907db.json', import.meta.url), 'utf8'))

describe('migration chain', () => {
  it('the production chain lifts the file the v2 build saved to a valid current state, one step per version, keeping every entity as it was (it has no working folder)', () => {
    const v2 = fixtureV2()
    expect(v2.version).toBe(2)
    const r = migrate(v2, MIGRATIONS, STATE_VERSION)
    expect(r).toMatchObject({
      ok: true,
      from: 2,
      steps: [
        migrationV2toV3.describe,
        migrationV3toV4.describe,
        migrationV4toV5.describe,
        migrationV5toV6.describe,
        migrationV6toV7.describe,
        migrationV7toV8.describe,
      ],
    })
    if (!r.ok) return
    const parsed = stateSchema.safeParse(r.doc)
    expect(parsed.success).toBe(true)
    if (!parsed.success) return
    const { version, networkUpgrade, bots, ...rest } = r.doc
    // v6 drops the (empty) pendingQuestions; v8 gives every Bot a level (to be told once); everything else is as it was.
    const { version: _old, pendingQuestions: _none, bots: botsBefore, ...before } = v2
    expect(version).toBe(STATE_VERSION)
    expect(rest).toEqual(before)
    const withLevels = Object.fromEntries(Object.entries(botsBefore as Record<string, object>).map(([id, b]) => [id, { ...b, network: 'internet' }]))
    expect(bots).toEqual(withLevels)
    expect((networkUpgrade as { bots: unknown[] }).bots).toHaveLength(Object.keys(withLevels).length)
    expect(parsed.data.paused).toBeUndefined()
    expect(parsed.data.schedules).toBeUndefined()
  })

  it("v3 → v4 moves each live Bot's working folder into `held` (why: upgrade) with a new id, keeps the rest, and leaves the input alone", () => {
    const v3 = JSON.parse(readFileSync(new URL('../../fixtures/state-v3-3f0144e.json', import.meta.url), 'utf8'))
    const before = JSON.stringify(v3)
    const v4 = migrationV3toV4.up(v3)
    expect(JSON.stringify(v3)).toBe(before)
    expect(v4.version).toBe(4)
    // Read as the current version (v5 adds optional delivery fields only; v6 drops the empty questions; v8 gives levels).
    const parsed = stateSchema.parse(migrationV7toV8.up(migrationV6toV7.up(migrationV5toV6.up(migrationV4toV5.up(v4)))))
    expect(parsed.bots['bot-2']!.workFolder).toBeUndefined()
    expect(parsed.held).toEqual([
      { id: 'held-1', why: 'upgrade', at: v3.writtenBy.at, kind: 'work-folder', botId: 'bot-2', folder: '/tmp/bot-team-v3-fixture/ada-work' },
    ])
    expect(parsed.nextIds.held).toBe(2)
    const { 'bot-2': ada, ...others } = parsed.bots
    const { 'bot-2': adaBefore, ...othersBefore } = v3.bots
    const levelled = (bots: Record<string, object>) => Object.fromEntries(Object.entries(bots).map(([id, b]) => [id, { ...b, network: 'internet' }]))
    expect(others).toEqual(levelled(othersBefore))
    const { workFolder: _folder, ...adaRest } = adaBefore
    expect(ada).toEqual({ ...adaRest, network: 'internet' })
    expect(parsed.schedules).toEqual(v3.schedules)
  })

  it('v4 → v5 moves only the version number, leaves the input alone, and the v3 file is a valid current state after both steps', () => {
    const v3 = JSON.parse(readFileSync(new URL('../../fixtures/state-v3-3f0144e.json', import.meta.url), 'utf8')) as Record<string, unknown>
    const v4 = migrationV3toV4.up(v3)
    const before = JSON.stringify(v4)
    expect(migrationV4toV5.up(v4)).toEqual({ ...v4, version: 5 })
    expect(JSON.stringify(v4)).toBe(before)
    const r = migrate(v3, MIGRATIONS, STATE_VERSION)
    expect(r).toMatchObject({
      ok: true,
      from: 3,
      steps: [migrationV3toV4.describe, migrationV4toV5.describe, migrationV5toV6.describe, migrationV6toV7.describe, migrationV7toV8.describe],
    })
    expect(r.ok && stateSchema.safeParse(r.doc).success).toBe(true)
  })

  it('v2 → v3 moves only the version number and leaves the input alone', () => {
    const v2 = fixtureV2()
    const before = JSON.stringify(v2)
    expect(migrationV2toV3.up(v2)).toEqual({ ...v2, version: 3 })
    expect(JSON.stringify(v2)).toBe(before)
  })

  it('the production chain lifts the file 0.1.0 saved (v1) to a valid current state, one step per version', () => {
    const v1 = fixtureV1()
    expect(v1.version).toBe(1)
    expect(STATE_VERSION).toBe(MIGRATIONS.length + 1)
    const r = migrate(v1, MIGRATIONS, STATE_VERSION)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.steps).toEqual(MIGRATIONS.map((m) => m.describe))
    const parsed = stateSchema.safeParse(r.doc)
    expect(parsed.success).toBe(true)
    if (!parsed.success) return
    // every Bot of 0.1.0 keeps its identity and gains the v2 default
    expect(Object.values(parsed.data.bots).map((b) => [b.name, b.permissionPreset, b.acceptsDelegatedWork])).toEqual([
      ['Main', 'workspace-write', false],
      ['Ada', 'workspace-write', false],
      ['Bob', 'read-only', false],
    ])
    expect(parsed.data.budgets).toEqual([])
    expect(parsed.data.deliveries.map((d) => d.status)).toEqual(['delivered', 'pending'])
    expect(parsed.data.groups['group-1']!.memberSessions).toEqual({ 'bot-2': 'session-v1-ada-crew' })
  })

  it('v1 → v2 adds acceptsDelegatedWork=false to every Bot and an empty budget list, and leaves the input alone', () => {
    const v1 = fixtureV1()
    const before = JSON.stringify(v1)
    const doc = migrationV1toV2.up(v1)
    expect(doc.version).toBe(2)
    expect(Object.values(doc.bots as Record<string, { acceptsDelegatedWork: boolean }>).every((b) => b.acceptsDelegatedWork === false)).toBe(true)
    expect(doc.budgets).toEqual([])
    expect(JSON.stringify(v1)).toBe(before)
  })

  it('a current file passes the chain unchanged', () => {
    const current = migrate(fixtureV1(), MIGRATIONS, STATE_VERSION)
    if (!current.ok) throw new Error('fixture did not migrate')
    expect(migrate(current.doc, MIGRATIONS, STATE_VERSION)).toMatchObject({ ok: true, from: STATE_VERSION, steps: [] })
  })

  it('the worked example (v1 → v2 moves preferences.theme into ui.theme) runs through the same migrate', () => {
    const v1 = { ...fixtureV1(), preferences: { theme: 'dark', nested: { a: [1, 2] } } }
    const r = migrate(v1, [exampleMigrationV1toV2], 2)
    expect(r).toMatchObject({
      ok: true,
      from: 1,
      steps: [exampleMigrationV1toV2.describe],
      doc: { version: 2, ui: { theme: 'dark' }, preferences: { nested: { a: [1, 2] } } },
    })
  })

  it('chains several steps in order', () => {
    const v2to3: Migration = { from: 2, describe: 'v2 → v3', up: (d) => ({ ...d, version: 3, three: true }) }
    const r = migrate(fixtureV1(), [v2to3, migrationV1toV2], 3)
    expect(r).toMatchObject({ ok: true, from: 1, steps: [migrationV1toV2.describe, 'v2 → v3'], doc: { version: 3, three: true, budgets: [] } })
  })

  it('reports a newer document instead of migrating it', () => {
    expect(migrate({ ...fixtureV1(), version: STATE_VERSION + 1 }, MIGRATIONS, STATE_VERSION)).toEqual({ ok: false, kind: 'newer', version: STATE_VERSION + 1 })
  })

  it('refuses gaps, bad steps and documents without a version', () => {
    expect(migrate(fixtureV1(), [], 2)).toMatchObject({ ok: false, kind: 'invalid', problem: 'no migration from version 1' })
    const wrong: Migration = { from: 1, describe: 'bad', up: (d) => ({ ...d }) }
    expect(migrate(fixtureV1(), [wrong], 2)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate({ bots: {} }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate([1, 2], MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
    expect(migrate({ version: '1' }, MIGRATIONS, 1)).toMatchObject({ ok: false, kind: 'invalid' })
  })

  it('v5 → v6 moves the pending questions to ledgerImport whole (an empty list leaves nothing), leaves the input alone, and gives a valid current state', () => {
    const v5 = JSON.parse(readFileSync(new URL('../../fixtures/state-v5-64c4f22.json', import.meta.url), 'utf8')) as Record<string, unknown>
    const before = JSON.stringify(v5)
    const { pendingQuestions, ...rest } = v5
    expect(migrationV5toV6.up(v5)).toEqual({ ...rest, version: 6, ledgerImport: pendingQuestions })
    expect(JSON.stringify(v5)).toBe(before)
    expect(migrationV5toV6.up({ ...v5, pendingQuestions: [] })).toEqual({ ...rest, version: 6 })
    const r = migrate(v5, MIGRATIONS, STATE_VERSION)
    expect(r).toMatchObject({ ok: true, from: 5, steps: [migrationV5toV6.describe, migrationV6toV7.describe, migrationV7toV8.describe] })
    expect(r.ok && stateSchema.safeParse(r.doc).success).toBe(true)
  })

  it('v6 → v7 moves only the version (the held project kind is new; the project itself is checked at the next start), and a held project is a valid v7 item', () => {
    const v6 = JSON.parse(readFileSync(new URL('../../fixtures/team-v6-09edfa6/state.json', import.meta.url), 'utf8')) as Record<string, unknown>
    const before = JSON.stringify(v6)
    expect(migrationV6toV7.up(v6)).toEqual({ ...v6, version: 7 })
    expect(JSON.stringify(v6)).toBe(before)
    const r = migrate(v6, MIGRATIONS, STATE_VERSION)
    expect(r).toMatchObject({ ok: true, from: 6, steps: [migrationV6toV7.describe, migrationV7toV8.describe] })
    if (!r.ok) return
    const held = {
      id: 'held-9',
      why: 'upgrade',
      at: '2026-12-06T16:04:36.467Z',
      kind: 'project',
      path: '/tmp/repo',
      branch: 'main',
      problem: 'The project /tmp/repo lies inside a shared temporary folder',
    }
    expect(stateSchema.safeParse({ ...r.doc, held: [held] }).success).toBe(true)
    expect(stateSchema.safeParse({ ...r.doc, held: [{ ...held, path: '' }] }).success).toBe(false)
  })
})

describe('v7 → v8: network levels', () => {
  /** A v7 document: the v6 fixture's team as the v7 build would keep it (v7 adds only a held `project` kind). */
  const v7 = (): Record<string, unknown> => ({
    ...JSON.parse(readFileSync(new URL('../../fixtures/team-v6-09edfa6/state.json', import.meta.url), 'utf8')),
    version: 7,
  })

  it('danger-full-access lands at full, a Bot off the network at none, every other Bot at internet; noNetwork goes; the person is told once, with the reason', () => {
    const before = v7()
    const frozen = JSON.stringify(before)
    const after = migrationV7toV8.up(before)
    expect(JSON.stringify(before)).toBe(frozen)
    expect(after.version).toBe(8)
    const bots = after.bots as Record<string, Record<string, unknown>>
    const byName = Object.fromEntries(Object.values(bots).map((b) => [b.name, b]))
    expect(byName.Dan).toMatchObject({ network: 'full', permissionPreset: 'danger-full-access' })
    expect(byName.Nix).toMatchObject({ network: 'none' })
    expect(byName.Nix).not.toHaveProperty('noNetwork')
    expect(byName.Ada).toMatchObject({ network: 'internet' })
    expect(byName.Main).toMatchObject({ network: 'internet' })
    expect(byName.Old).toMatchObject({ network: 'internet' })
    expect(after.networkUpgrade).toEqual({
      at: (before.writtenBy as { at: string }).at,
      bots: expect.arrayContaining([
        { botId: byName.Dan!.id, level: 'full', why: 'danger-full-access' },
        { botId: byName.Nix!.id, level: 'none', why: 'no-network' },
        { botId: byName.Ada!.id, level: 'internet', why: 'default' },
      ]),
    })
    // The deleted Bot gets a level but is not told about.
    expect((after.networkUpgrade as { bots: { botId: string }[] }).bots.map((b) => b.botId)).not.toContain(byName.Old!.id)
    // Everything else is as it was.
    const strip = (doc: Record<string, unknown>) => {
      const { version: _v, bots: _b, networkUpgrade: _n, ...rest } = doc
      return rest
    }
    expect(strip(after)).toEqual(strip(before))
  })

  it('a Bot on a custom preset keeps no level (read from its mode at run time), unless it was off the network; a level already there stays', () => {
    const doc = v7()
    const bots = doc.bots as Record<string, Record<string, unknown>>
    const [a, b, c] = Object.keys(bots)
    bots[a!]!.permissionPreset = 'my-preset'
    bots[b!]!.permissionPreset = 'my-preset'
    bots[b!]!.noNetwork = true
    bots[c!]!.network = 'none'
    bots[c!]!.permissionPreset = 'danger-full-access'
    const after = migrationV7toV8.up(doc).bots as Record<string, Record<string, unknown>>
    expect(after[a!]).not.toHaveProperty('network')
    expect(after[b!]).toMatchObject({ network: 'none' })
    expect(after[c!]).toMatchObject({ network: 'none' })
  })
})

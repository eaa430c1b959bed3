/**
 * The chain that lifts an older `state.json` to `STATE_VERSION` (pure, on parsed JSON), one step per
 * version; each change of shape adds one step. A newer file is never migrated down: it opens
 * read-only. Deliberately no typed state, no I/O.
 */

/** One step: takes a document of version `from`, returns a document of version `from + 1`. */
export interface Migration {
  from: number
  describe: string
  up: (doc: Record<string, unknown>) => Record<string, unknown>
}

export type MigrateResult =
  | { ok: true; doc: Record<string, unknown>; from: number; steps: string[] }
  | { ok: false; kind: 'newer'; version: number }
  | { ok: false; kind: 'invalid'; problem: string }

/**
 * v1 (0.1) → v2 (0.2): every Bot gets `acceptsDelegatedWork: false` (delegated work runs at the
 * lowest preset along its chain unless the person says otherwise), and the team gets an empty list
 * of work budgets. Deliveries and groups gain only optional fields.
 */
export const migrationV1toV2: Migration = {
  from: 1,
  describe: 'v1 → v2: Bots accept no delegated work at their own preset; work budgets start empty',
  up(doc) {
    const bots: Record<string, unknown> = {}
    for (const [key, bot] of Object.entries((doc.bots as Record<string, Record<string, unknown>> | undefined) ?? {})) {
      bots[key] = bot && typeof bot === 'object' ? { ...bot, acceptsDelegatedWork: false } : bot
    }
    return { ...doc, version: 2, bots, budgets: [] }
  },
}

/**
 * v2 → v3 (0.2): only optional fields were added (pause, schedules, usage settings, part handoff
 * fields, groups' member parts), so a v2 document is a valid v3 one as it is; the step moves the version number, which
 * keeps a v2 build from writing to a team whose pause or schedules it would not honour.
 */
export const migrationV2toV3: Migration = {
  from: 2,
  describe: 'v2 → v3: new optional fields only (pause, schedules, usage settings, part handoff fields)',
  up(doc) {
    return { ...doc, version: 3 }
  },
}

/**
 * v3 → v4 (0.2): a working folder saved by v3 has no real path stored, so no open could tell it
 * was swapped for a link since: each is moved into `held` (kind `work-folder`, why `upgrade`) and
 * the Bot works in the team workspace until the person confirms the folder in a paired browser,
 * which stores its real path then. Everything else of v4 is optional.
 */
export const migrationV3toV4: Migration = {
  from: 3,
  describe: "v3 → v4: Bots' working folders wait for the person's confirmation (their real paths are stored then)",
  up(doc) {
    const at = typeof (doc.writtenBy as { at?: unknown } | undefined)?.at === 'string' ? (doc.writtenBy as { at: string }).at : new Date(0).toISOString()
    const nextIds = { ...((doc.nextIds as Record<string, number> | undefined) ?? {}) }
    const held = [...((doc.held as unknown[] | undefined) ?? [])]
    const bots: Record<string, unknown> = {}
    for (const [key, bot] of Object.entries((doc.bots as Record<string, Record<string, unknown>> | undefined) ?? {})) {
      if (!bot || typeof bot !== 'object' || typeof bot.workFolder !== 'string' || bot.deleted) {
        bots[key] = bot
        continue
      }
      const { workFolder, ...rest } = bot
      const n = nextIds.held ?? 1
      nextIds.held = n + 1
      held.push({ id: `held-${n}`, why: 'upgrade', at, kind: 'work-folder', botId: key, folder: workFolder })
      bots[key] = rest
    }
    return { ...doc, version: 4, bots, nextIds, ...(held.length ? { held } : {}) }
  },
}

/**
 * v4 → v5 (0.2): deliveries may be room reports (`kind: report`) and carry the `reply` recorded
 * for a message; both are new, so a v4 document is a valid v5 one as it is. The step moves the
 * version, which keeps a v4 build from writing to a team whose outbox it does not understand.
 */
export const migrationV4toV5: Migration = {
  from: 4,
  describe: 'v4 → v5: room reports and replies through the outbox (new optional delivery fields only)',
  up(doc) {
    return { ...doc, version: 5 }
  },
}

/**
 * v5 → v6 (0.3): `pendingQuestions` leaves team state; questions are tasks for the person in the
 * task ledger. The entries a v5 file held move to `ledgerImport`, which the ledger takes once (by
 * their ids) at its next start as the writer, then removes. An empty list leaves nothing behind.
 */
export const migrationV5toV6: Migration = {
  from: 5,
  describe: 'v5 → v6: pending questions move into the task ledger (held in ledgerImport until it takes them)',
  up(doc) {
    const { pendingQuestions, ...rest } = doc
    const questions = Array.isArray(pendingQuestions) ? pendingQuestions : []
    return { ...rest, version: 6, ...(questions.length ? { ledgerImport: questions } : {}) }
  },
}

/**
 * v6 → v7 (Trust III): `held` gains the `project` kind. The project's path lives in
 * `bot/project.json`, not here, so this pure step only moves the version (a v6 build would use a
 * held project); the team's first start as the writer checks the project against v7's rules and
 * holds one named inside a protected folder, a Bot's folder or a shared temporary folder.
 */
export const migrationV6toV7: Migration = {
  from: 6,
  describe: 'v6 → v7: a held `project` kind (the next start holds a project named where a Bot may write)',
  up(doc) {
    return { ...doc, version: 7 }
  },
}

/**
 * v7 → v8 (0.4): every Bot gets a network level (issue 33). A Bot at danger-full-access lands at
 * `full` (its commands ran unconfined: nothing changes for it), a Bot whose network was switched
 * off (`noNetwork`) at `none`, every other Bot at `internet` (the internet through a user-mode
 * stack, never this machine). A Bot on a custom preset (not switched off) is left without a level:
 * the roster reads it from the preset's mode by the same rule. The levels given are kept in `networkUpgrade` until the
 * person has been told once, with the reason.
 */
export const migrationV7toV8: Migration = {
  from: 7,
  describe: 'v7 → v8: Bots get network levels (danger-full-access → full, a Bot off the network → none, every other Bot → internet)',
  up(doc) {
    const at = typeof (doc.writtenBy as { at?: unknown } | undefined)?.at === 'string' ? (doc.writtenBy as { at: string }).at : new Date(0).toISOString()
    const told: { botId: string; level: string; why: string }[] = []
    const bots: Record<string, unknown> = {}
    for (const [key, bot] of Object.entries((doc.bots as Record<string, Record<string, unknown>> | undefined) ?? {})) {
      if (!bot || typeof bot !== 'object') {
        bots[key] = bot
        continue
      }
      const { noNetwork, ...rest } = bot
      const preset = rest.permissionPreset
      const known = preset === 'read-only' || preset === 'workspace-write' || preset === 'danger-full-access'
      if (typeof rest.network === 'string' || (!known && noNetwork !== true)) {
        bots[key] = rest
        continue
      }
      const [level, why] =
        noNetwork === true ? ['none', 'no-network'] : preset === 'danger-full-access' ? ['full', 'danger-full-access'] : ['internet', 'default']
      bots[key] = { ...rest, network: level }
      if (!rest.deleted) told.push({ botId: key, level, why })
    }
    return { ...doc, version: 8, bots, ...(told.length ? { networkUpgrade: { at, bots: told } } : {}) }
  },
}

/** The production chain, indexed by `from`. */
export const MIGRATIONS: readonly Migration[] = [
  migrationV1toV2,
  migrationV2toV3,
  migrationV3toV4,
  migrationV4toV5,
  migrationV5toV6,
  migrationV6toV7,
  migrationV7toV8,
]

/**
 * Example of a real step (not in `MIGRATIONS`): v2 would move `preferences.theme` (a loose
 * preference) into a typed `ui: { theme }` block and record it as the only change.
 */
export const exampleMigrationV1toV2: Migration = {
  from: 1,
  describe: 'v1 → v2: preferences.theme moves to ui.theme',
  up(doc) {
    const preferences = { ...((doc.preferences as Record<string, unknown> | undefined) ?? {}) }
    const theme = typeof preferences.theme === 'string' ? preferences.theme : 'system'
    delete preferences.theme
    return { ...doc, version: 2, preferences, ui: { theme } }
  },
}

/**
 * Apply `chain` to `raw` until it reaches `target`. Pure: `raw` is not modified.
 * Returns `newer` for a document from a later version and `invalid` when there is no
 * version number or no step for some version on the way.
 */
export function migrate(raw: unknown, chain: readonly Migration[], target: number): MigrateResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, kind: 'invalid', problem: 'the top level is not a JSON object' }
  }
  const version = (raw as Record<string, unknown>).version
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { ok: false, kind: 'invalid', problem: '"version" is missing or not a positive integer' }
  }
  if (version > target) return { ok: false, kind: 'newer', version }
  let doc = structuredClone(raw) as Record<string, unknown>
  const steps: string[] = []
  for (let v = version; v < target; v++) {
    const step = chain.find((m) => m.from === v)
    if (!step) return { ok: false, kind: 'invalid', problem: `no migration from version ${v}` }
    doc = step.up(doc)
    if (doc.version !== v + 1) {
      return { ok: false, kind: 'invalid', problem: `migration from version ${v} produced version ${String(doc.version)}` }
    }
    steps.push(step.describe)
  }
  return { ok: true, doc, from: version, steps }
}

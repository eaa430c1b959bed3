/**
 * The shape of `bot/state.json` (zod, `STATE_VERSION`): Bots, groups, deliveries, budgets, schedules,
 * limits, the pause, usage settings, questions, counters, revision; fields a newer build of the same
 * version wrote are kept. Deliberately no chat history and no absolute paths; no I/O, no migration.
 */
import { z } from 'zod'
import { LimitOverrides } from '../core/limits.ts'
import { NETWORK_LEVELS } from '../core/network.ts'

/**
 * The schema version this build writes. A file with a larger `version` is opened read-only.
 * v2 (0.2): Bots' `acceptsDelegatedWork`, work `budgets`, the chain of a delivery (`budget`,
 * `mode`), groups' persisted `botRounds`.
 * v3 (0.2): the pause switch (`paused`), scheduled tasks (`schedules`), usage settings (`usage`:
 * prices, daily caps), Session parts' handoff fields (`note`, `opening`, `resume`), groups'
 * `memberParts` (each member's Session parts in the group), the person's limit overrides (`limits`). All optional;
 * the version moves so that a v2 build opens a v3 team read-only instead of ignoring a pause or
 * letting schedules lapse.
 * v4 (0.2): Bots' `workFolderReal` (the real path every open compares with) and `noNetwork`; the
 * settings kept lowered until the person confirms them (`held`: from a restore, and the working
 * folders set before v4).
 * v5 (0.2): deliveries of kind `report` (a room's replies back to its poster, through the outbox)
 * and a message's `reply` (the reply recorded for it, or `none`), so a reply a crash cut is sent
 * once at the next start. The version moves so that a v4 build opens such a team read-only
 * instead of refusing a `report` record or sending a reply twice.
 * v6 (0.3): `pendingQuestions` (never used) is gone: questions live in the task ledger as tasks for
 * the person. Those a v5 file held wait in `ledgerImport` until the ledger has taken them (once).
 * v7 (Trust III): a held `project` (a project named where a Bot may write, or restored from an
 * archive) is not used until the person names it again. The version moves so that a v6 build
 * does not use a held project.
 * v8 (0.4): every Bot has a network level (`network`: `internet`, `none` or `full`; `noNetwork` is
 * gone), and `networkUpgrade` keeps the levels the step gave until the person has been told once.
 * The version moves so that a v7 build does not run a Bot at `internet` on the machine's network.
 */
export const STATE_VERSION = 8

/** Sandbox modes, lowest first (the authority a chain carries). */
const sandboxMode = z.enum(['read-only', 'workspace-write', 'danger-full-access'])

const id = z.string().min(1).max(200)
/** An ISO-8601 timestamp string (as produced by `Date#toISOString`). */
const isoTime = z.iso.datetime({ offset: true })

/** A reference that must never be an absolute filesystem path. */
const relativeRef = z
  .string()
  .min(1)
  .refine((s) => !s.startsWith('/') && !s.startsWith('\\') && !/^[A-Za-z]:[\\/]/.test(s) && !s.split(/[\\/]/).includes('..'), {
    message: 'must be a name relative to the bot folder, never an absolute path or a path with ..',
  })

/**
 * Forward compatibility: a newer build of the same schema version may add fields. Unknown fields
 * are kept as they are (a save by this build writes them back) but must hold JSON.
 */
function keepUnknownJson<T extends z.ZodObject>(schema: T): T {
  const known = new Set(Object.keys(schema.shape))
  const json = z.json()
  return schema.superRefine((value, ctx) => {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (!known.has(key) && !json.safeParse(v).success)
        ctx.addIssue({ code: 'custom', path: [key], message: 'a field this build does not know must hold JSON' })
    }
  })
}

export const avatarSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('shape'), shape: z.string().min(1) }),
  /** `image` names a file under `bot/avatars/`, never an absolute path. */
  z.object({ kind: z.literal('image'), image: relativeRef }),
])

/** One DSH Session that served as (part of) a Bot's conversation. Ids only, never paths. */
export const sessionPartSchema = z.object({
  sessionId: id,
  part: z.int().min(1),
  startedAt: isoTime,
  endedAt: isoTime.optional(),
  /** Why the part ended (handoff, archive, …); free text for the UI. */
  endReason: z.string().optional(),
  /** The handoff note that opened this part: a file name relative to the bot folder. */
  note: relativeRef.optional(),
  /** The handoff package (first message) of this part: `pending` until it entered the Session. */
  opening: z.enum(['pending', 'sent']).optional(),
  /** The part was opened in the middle of a turn, which goes on in it. */
  resume: z.boolean().optional(),
})

export const botSchema = keepUnknownJson(
  z.looseObject({
    id,
    name: z.string().min(1).max(100),
    /** The role label shown in the UI ("Reviewer", "Researcher", …). */
    role: z.string().max(200),
    instructions: z.string(),
    model: z.string().min(1).optional(),
    avatar: avatarSchema,
    colour: z.string().regex(/^#[0-9a-fA-F]{6}$/),
    permissionPreset: z.string().min(1),
    pinned: z.boolean(),
    hidden: z.boolean(),
    /** `'user'` or the id of the Bot that created this Bot. */
    createdBy: id,
    createdAt: isoTime,
    main: z.boolean(),
    sessionParts: z.array(sessionPartSchema),
    deleted: z.object({ at: isoTime, by: id }).optional(),
    /**
     * The person marked this Bot to run delegated work (turns started by other Bots, rooms, timers)
     * at its own preset instead of the lowest along the chain. Set only from the paired team page.
     */
    acceptsDelegatedWork: z.boolean(),
    /**
     * The folder the Bot's next Sessions (own-chat parts, group member Sessions) are created in
     * (absolute, normalised); absent = the team's workspace. Set only by the person.
     */
    workFolder: z.string().min(1).max(4096).optional(),
    /**
     * The real path of `workFolder` (links resolved) when the person set it: every Session opened
     * there must still resolve to it. Absent with `workFolder` only in a file from before v4.
     */
    workFolderReal: z.string().min(1).max(4096).optional(),
    /**
     * What the Bot's shell reaches (v8; set only by the person): `internet` (the default: never this
     * machine), `none`, or `full` (the machine's network, as DSH alone gives it). The v8 step sets it
     * for every Bot on a built-in preset (`noNetwork`, v4–v7, became `none`); absent on a custom
     * preset: `full` when that preset runs at danger-full-access, else `internet`.
     */
    network: z.enum(NETWORK_LEVELS).optional(),
  }),
)

export const groupSchema = keepUnknownJson(
  z.looseObject({
    id,
    name: z.string().min(1).max(100),
    members: z.array(id),
    admin: id.optional(),
    mode: z.enum(['admin', 'everyone']),
    notice: z.string(),
    roomSessionId: id.optional(),
    /** botId → the Session id that Bot uses inside this group. */
    memberSessions: z.record(id, id),
    /**
     * botId → that member's Session parts in this group, oldest first; the last is the current one
     * (its id equals `memberSessions[botId]`). Absent until the member's first handoff (part 1).
     */
    memberParts: z.record(id, z.array(sessionPartSchema).max(10_000)).optional(),
    /** botId → how many room posts that member has seen (its "last looked" cursor); absent in older files. */
    seen: z.record(id, z.int().min(0)).optional(),
    createdAt: isoTime,
    deleted: z.object({ at: isoTime, by: id }).optional(),
    /** Rounds Bots started here since the person last wrote in the room (bounded by a limit). */
    botRounds: z.int().min(0).optional(),
  }),
)

/** An inter-Bot message, recorded before it is performed so a crash cannot lose it. */
export const deliverySchema = keepUnknownJson(
  z.looseObject({
    id,
    from: id,
    /** The target Bot's id. (A `groupId` field, never written by any build, was dropped from the schema; a file carrying one keeps it as an unknown field.) */
    to: id,
    /** `report`: a group's replies to a post, sent back to the posting Bot (`from` is the group's id, `replyTo` the post's). */
    kind: z.enum(['message', 'interrupt', 'stop', 'reply', 'report']),
    body: z.string(),
    hop: z.int().min(0),
    replyTo: id.nullable(),
    createdAt: isoTime,
    updatedAt: isoTime.optional(),
    status: z.enum(['pending', 'delivered', 'discarded', 'failed']),
    outcome: z.string().optional(),
    /** message_bot's reply_to: `sender` routes the answer back, `user` leaves it in the target's chat. */
    replyMode: z.enum(['sender', 'user']).optional(),
    /** A `sender` message's reply once recorded (its delivery id), or `none` when no reply will come. */
    reply: id.optional(),
    /** The target Session the message was handed to (its own-chat part at send time). */
    sessionId: id.optional(),
    /** The work budget the chain draws from, and the lowest sandbox mode along it. */
    budget: id.optional(),
    mode: sandboxMode.optional(),
    /** The strictest network level along the chain (v8; absent: the target's own). */
    network: z.enum(NETWORK_LEVELS).optional(),
  }),
)

/** Bot-started turns one message of the person may cause (see `src/chain.ts`). */
export const budgetSchema = z.object({
  id,
  openedBy: id,
  origin: id,
  openedAt: isoTime,
  limit: z.int().min(0),
  used: z.int().min(0),
})

export const pendingQuestionSchema = keepUnknownJson(
  z.looseObject({
    id,
    botId: id,
    sessionId: id.optional(),
    question: z.string(),
    options: z.array(z.string()).optional(),
    askedAt: isoTime,
    status: z.enum(['open', 'answered', 'cancelled']),
    answer: z.string().optional(),
  }),
)

/** A daily spending cap: tokens (input uncached + cached + output) and/or money (needs prices). */
const dailyCapSchema = z
  .object({
    tokens: z.int().min(1).max(1e12).optional(),
    money: z.number().positive().max(1e9).optional(),
  })
  .strict()

/** What the person entered for the usage ledger (no price list is shipped): prices, daily caps. */
export const usageSettingsSchema = z
  .object({
    /** Shown next to money figures (e.g. `USD`, `CNY`); free text. */
    currency: z.string().max(8).optional(),
    /** `provider/model` → price per million tokens of uncached input, cached input and output. */
    prices: z
      .record(
        z.string().min(1).max(200),
        z
          .object({
            input: z.number().min(0).max(1e6),
            cached: z.number().min(0).max(1e6),
            output: z.number().min(0).max(1e6),
          })
          .strict(),
      )
      .optional(),
    /** Daily caps: the whole team, every Bot, and per Bot id (overrides `eachBot`). */
    caps: z
      .object({ team: dailyCapSchema.optional(), eachBot: dailyCapSchema.optional(), bots: z.record(id, dailyCapSchema).optional() })
      .strict()
      .optional(),
    /** Caps already reported to the person, `<day> <scope>` (the current day's only). */
    notified: z.array(z.string().max(300)).max(2_000).optional(),
  })
  .strict()
/** The person's pause switch: while set, Bot-started work is held (see `src/operations/pause.ts`). */
export const pauseSchema = z.object({
  at: isoTime,
  /** `user` (team page / HTTP). */
  by: id,
  reason: z.string().max(500).optional(),
})

/** A clock time of day, `HH:MM` (24 h). */
const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/)

/** When a scheduled task is due (see `src/operations/schedules/rules.ts`). */
export const scheduleRuleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('at'), at: isoTime }),
  z.object({ kind: z.literal('daily'), time: clockTime, timeZone: z.string().min(1).max(100) }),
  /** `days`: 0 = Sunday … 6 = Saturday, in `timeZone`. */
  z.object({ kind: z.literal('weekly'), days: z.array(z.int().min(0).max(6)).min(1).max(7), time: clockTime, timeZone: z.string().min(1).max(100) }),
  z.object({ kind: z.literal('every'), minutes: z.int().min(5).max(525_600) }),
])

/** A scheduled task of a Bot or a group: the plugin's own timers fire it. */
export const scheduleSchema = keepUnknownJson(
  z.looseObject({
    id,
    target: z.discriminatedUnion('kind', [z.object({ kind: z.literal('bot'), botId: id }), z.object({ kind: z.literal('group'), groupId: id })]),
    prompt: z.string().min(1).max(4000),
    rule: scheduleRuleSchema,
    /** `user` or the id of the Bot that created it: the task runs at its creator's authority. */
    createdBy: id,
    /** The lowest sandbox mode of the creator's turn (absent: the person created it). */
    mode: sandboxMode.optional(),
    createdAt: isoTime,
    /** The next time it is due; absent once a one-off task has run. */
    nextDueAt: isoTime.optional(),
    /** The due time of the last run. */
    lastRunAt: isoTime.optional(),
    runs: z.int().min(0),
  }),
)

/**
 * Why a setting is held: a restore carries no authority, a folder set before v4 has no real path
 * stored, and a project named before v7 may lie where a Bot can write.
 */
const heldWhy = z.enum(['restore', 'upgrade'])

/**
 * A setting that raises authority, kept lowered (or off) until the person confirms it in a paired
 * browser: a preset above workspace-write (the Bot runs at workspace-write meanwhile), the
 * delegated-work flag (off), a working folder (the team workspace meanwhile), a schedule (not due),
 * the team's project (no project tasks meanwhile; `problem` says why, when it failed the check).
 */
export const heldItemSchema = z.discriminatedUnion('kind', [
  z.object({ id, why: heldWhy, at: isoTime, kind: z.literal('preset'), botId: id, preset: z.string().min(1).max(200) }),
  z.object({ id, why: heldWhy, at: isoTime, kind: z.literal('delegated-work'), botId: id }),
  z.object({ id, why: heldWhy, at: isoTime, kind: z.literal('work-folder'), botId: id, folder: z.string().min(1).max(4096) }),
  z.object({ id, why: heldWhy, at: isoTime, kind: z.literal('schedule'), scheduleId: id, nextDueAt: isoTime.optional() }),
  z.object({
    id,
    why: heldWhy,
    at: isoTime,
    kind: z.literal('project'),
    path: z.string().min(1).max(4096),
    branch: z.string().min(1).max(200),
    problem: z.string().min(1).max(2000).optional(),
  }),
])

export const stateSchema = keepUnknownJson(
  z.looseObject({
    version: z.literal(STATE_VERSION),
    /** Monotonic: +1 per successful save. */
    revision: z.int().min(0),
    writtenBy: z.object({ pluginVersion: z.string(), at: isoTime }),
    bots: z.record(id, botSchema),
    groups: z.record(id, groupSchema),
    deliveries: z.array(deliverySchema),
    budgets: z.array(budgetSchema),
    preferences: z.record(z.string(), z.json()),
    /** kind → next number; ids are `<kind>-<n>` and are never reused, even after deletion. */
    nextIds: z.record(z.string().regex(/^[a-z][a-z0-9]*$/), z.int().min(1)),
    /** Usage ledger settings: prices, daily caps, caps reported (optional; src/usage/). */
    usage: usageSettingsSchema.optional(),
    /** Set while the person has paused the team. */
    paused: pauseSchema.optional(),
    /** Scheduled tasks of Bots and groups. */
    schedules: z.array(scheduleSchema).max(500).optional(),
    /**
     * The person's overrides of the team and room limits (Team settings; src/operations/limits.ts).
     * Loose here (strict in the settings API): a newer build's extra limit must not make this one
     * refuse the file.
     */
    limits: keepUnknownJson(z.looseObject(LimitOverrides.shape)).optional(),
    /** Settings awaiting the person's confirmation (v4). */
    held: z.array(heldItemSchema).max(10_000).optional(),
    /** Questions of a v5 file, until the task ledger has taken them (v6; then removed). */
    ledgerImport: z.array(pendingQuestionSchema).max(500).optional(),
    /**
     * The levels the v8 step gave Bots (and why), until the person has been told once (then removed).
     */
    networkUpgrade: z
      .object({
        at: isoTime,
        bots: z.array(z.object({ botId: id, level: z.enum(NETWORK_LEVELS), why: z.enum(['danger-full-access', 'no-network', 'default']) })).max(10_000),
      })
      .optional(),
  }),
).superRefine((s, ctx) => {
  for (const issue of teamInvariantIssues(s)) ctx.addIssue({ code: 'custom', ...issue })
})

/**
 * The rules that span entities (keys match ids, group members and admins exist, delivery ids are
 * unique). Part of `stateSchema`; exported so the store's incremental check (`validate.ts`)
 * runs exactly the same rules after validating only the entities a transaction changed.
 */
export function teamInvariantIssues(s: Pick<TeamState, 'bots' | 'groups' | 'deliveries'>): Array<{ path: Array<string | number>; message: string }> {
  const issues: Array<{ path: Array<string | number>; message: string }> = []
  for (const [key, bot] of Object.entries(s.bots)) {
    if (key !== bot.id) issues.push({ path: ['bots', key, 'id'], message: `bot key ${key} differs from its id ${bot.id}` })
  }
  for (const [key, group] of Object.entries(s.groups)) {
    if (key !== group.id) issues.push({ path: ['groups', key, 'id'], message: `group key ${key} differs from its id ${group.id}` })
    for (const m of group.members) {
      if (!Object.hasOwn(s.bots, m)) issues.push({ path: ['groups', key, 'members'], message: `member ${m} is not a known Bot` })
    }
    if (group.admin !== undefined && !group.members.includes(group.admin)) {
      issues.push({ path: ['groups', key, 'admin'], message: `admin ${group.admin} is not a member` })
    }
  }
  const seen = new Set<string>()
  for (const d of s.deliveries) {
    if (seen.has(d.id)) issues.push({ path: ['deliveries'], message: `duplicate delivery id ${d.id}` })
    seen.add(d.id)
  }
  return issues
}

export type Bot = z.infer<typeof botSchema>
export type Group = z.infer<typeof groupSchema>
export type Delivery = z.infer<typeof deliverySchema>
export type TeamState = z.infer<typeof stateSchema>
export type UsageSettings = z.infer<typeof usageSettingsSchema>
export type PauseRecord = z.infer<typeof pauseSchema>
export type ScheduleRule = z.infer<typeof scheduleRuleSchema>
export type Schedule = z.infer<typeof scheduleSchema>
export type HeldItem = z.infer<typeof heldItemSchema>

/** The state of a team that has never been saved: revision 0, nothing in it. */
export function emptyState(pluginVersion = '0.0.0', now = new Date()): TeamState {
  return {
    version: STATE_VERSION,
    revision: 0,
    writtenBy: { pluginVersion, at: now.toISOString() },
    bots: {},
    groups: {},
    deliveries: [],
    budgets: [],
    preferences: {},
    nextIds: {},
  }
}

/**
 * Take the next id of a kind (`bot`, `group`, `delivery`, `question`, …) from the counters of a
 * draft state inside a transaction. Ids are never reused: the counter only moves forward.
 */
export function allocateId(draft: TeamState, kind: string): string {
  if (!/^[a-z][a-z0-9]*$/.test(kind)) throw new TypeError(`invalid id kind: ${kind}`)
  const n = draft.nextIds[kind] ?? 1
  draft.nextIds[kind] = n + 1
  return `${kind}-${n}`
}

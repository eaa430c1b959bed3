/**
 * The authority matrix: every caller kind × team action × target variant, checked against an
 * expectation table written here independently of `decide` (features §1–§3, §6 and the choices
 * in the table on `decide` in `src/core/authority.ts`); then the matrix by the turn (origin ×
 * source kind × action) and for the person over HTTP without a paired browser.
 */
import { describe, expect, it } from 'vitest'
import { TASK_ACTIONS, TEAM_ACTIONS, decide, type Caller, type TaskAction, type Target, type TeamAction } from '../../../src/core/authority.ts'
import { openerOf, turnMode, turnOrigin, type Chain, type SandboxMode } from '../../../src/core/chain.ts'
import { deliverySource, handoffSource, roomTurnSource, scheduleSource } from '../../../src/core/sources.ts'

// ---------------------------------------------------------------------------------------------
// The expectation table.
//
// target: what the action must name — 'bot' (target.botId), 'group' (target.groupId) or '-'.
// Per caller a rule:
//   yes        always (once the target is named)
//   no         never                               → refusal `no` (given per action)
//   others     only on another Bot, never itself   → refusal `self`
//   own        only its own (botId absent = own)   → refusal `not-own`
//   member     only groups it is a member/admin of → refusal `not-member`
//   admin      only the group it admins            → refusal `not-admin`
//   team-admin only if it admins any group         → refusal `team-memory`
// guards: checked after the rule, in order — 'last-main' (refused when wouldRemoveLastMain),
//   'round' (refused while a round runs).
// ---------------------------------------------------------------------------------------------

type Rule = 'yes' | 'no' | 'others' | 'own' | 'member' | 'admin' | 'team-admin'
type Guard = 'asked' | 'raise' | 'last-main' | 'round'
type Refusal =
  | 'not-a-bot'
  | 'unidentified'
  | 'no-bot'
  | 'no-group'
  | 'main-only'
  | 'not-admin'
  | 'self'
  | 'not-own'
  | 'not-member'
  | 'team-memory'
  | 'last-main'
  | 'round'
  | 'not-asked'
  | 'raise'

interface Row {
  target: 'bot' | 'group' | '-'
  user: Rule
  main: Rule
  bot: Rule
  no?: Refusal
  guards: Guard[]
}

/** The actions of the generated matrix (the task actions have a matrix of their own, below). */
type MatrixAction = Exclude<TeamAction, TaskAction>
const MATRIX_ACTIONS = TEAM_ACTIONS.filter((a): a is MatrixAction => !(TASK_ACTIONS as readonly string[]).includes(a))

const TABLE: Record<MatrixAction, Row> = {
  //                    target        user          main              bot                 refusal for 'no'     guards
  list_bots: { target: '-', user: 'yes', main: 'yes', bot: 'yes', guards: [] },
  list_models: { target: '-', user: 'yes', main: 'yes', bot: 'yes', guards: [] },
  create_bot: { target: '-', user: 'yes', main: 'yes', bot: 'no', no: 'main-only', guards: ['raise'] },
  update_bot: { target: 'bot', user: 'yes', main: 'yes', bot: 'no', no: 'main-only', guards: ['asked', 'raise', 'last-main'] },
  delete_bot: { target: 'bot', user: 'yes', main: 'others', bot: 'no', no: 'main-only', guards: ['asked', 'last-main'] },
  message_bot: { target: 'bot', user: 'yes', main: 'others', bot: 'others', guards: [] },
  interrupt_bot: { target: 'bot', user: 'yes', main: 'others', bot: 'no', no: 'main-only', guards: [] },
  stop_bot: { target: 'bot', user: 'yes', main: 'others', bot: 'no', no: 'main-only', guards: [] },
  create_group: { target: '-', user: 'yes', main: 'yes', bot: 'no', no: 'main-only', guards: [] },
  update_group: { target: 'group', user: 'yes', main: 'yes', bot: 'admin', guards: [] },
  delete_group: { target: 'group', user: 'yes', main: 'yes', bot: 'no', no: 'main-only', guards: ['round'] },
  post_to_group: { target: 'group', user: 'yes', main: 'yes', bot: 'admin', guards: [] },
  read_group_chat: { target: 'group', user: 'yes', main: 'yes', bot: 'member', guards: [] },
  write_own_memory: { target: '-', user: 'yes', main: 'yes', bot: 'own', guards: ['asked'] },
  write_team_memory: { target: '-', user: 'yes', main: 'yes', bot: 'team-admin', guards: [] },
  read_own_chat: { target: '-', user: 'yes', main: 'own', bot: 'own', guards: [] },
}

/** What every refusal reason must say: who may do it (or, for a missing target, how to name one). */
const REASON_MUST_MATCH: Record<Refusal, RegExp[]> = {
  'not-a-bot': [/not a Bot/, /Bots of the team and the user/],
  unidentified: [/could not be identified/, /identified Bot of the team or the user/],
  'no-bot': [/No target Bot/, /list_bots/],
  'no-group': [/No target group/, /name or id/],
  'main-only': [/^Only a Main Bot may /, /Ask a Main Bot or the user/],
  'not-admin': [/^Only a Main Bot or this group's admin may /, /Ask a Main Bot, the group's admin or the user/],
  self: [/^You cannot \w+ yourself/, /another (Main )?Bot|the user/],
  'not-own': [/You can \w+ only your own/, /Ask that Bot/],
  'not-member': [/Only this group's members and Main Bots/, /Ask a Main Bot or a member/],
  'team-memory': [/Only Main Bots and group admins/, /Ask a Main Bot or a group admin/],
  'last-main': [/Main Bot/, /The user or a Main Bot must make another Bot a Main Bot first/],
  round: [/round is running/, /a Main Bot or the user may delete it/],
  'not-asked': [/only when the user asks/, /this turn was not opened by the user/, /team page/],
  raise: [/Raising a Bot's permission preset is the person's act/, /team page/],
}

/** The verb each role refusal names, so a refusal says what exactly was refused. */
const ACTION_WORD: Record<MatrixAction, RegExp> = {
  list_bots: /list/,
  list_models: /list/,
  create_bot: /create Bots/,
  update_bot: /change Bots/,
  delete_bot: /delete/,
  message_bot: /message/,
  interrupt_bot: /interrupt/,
  stop_bot: /stop/,
  create_group: /create groups/,
  update_group: /change the group/,
  delete_group: /delete/,
  post_to_group: /post to the group/,
  read_group_chat: /read its chat/,
  write_own_memory: /write only your own memory/,
  write_team_memory: /write team memory/,
  read_own_chat: /read only your own chat/,
}

// ---------------------------------------------------------------------------------------------
// The variants.
// ---------------------------------------------------------------------------------------------

const ME = 'bot-1'
const OTHER = 'bot-2'

const CALLERS: Array<{ label: string; caller: Caller }> = [
  { label: 'user', caller: { kind: 'user' } },
  { label: 'main-bot', caller: { kind: 'main-bot', botId: ME } },
  { label: 'bot', caller: { kind: 'bot', botId: ME } },
  { label: 'non-bot-session', caller: { kind: 'non-bot-session' } },
  { label: 'non-bot-session claiming a botId', caller: { kind: 'non-bot-session', botId: ME } },
  { label: 'main-bot without botId', caller: { kind: 'main-bot' } },
  { label: 'bot without botId', caller: { kind: 'bot' } },
]

type BotRel = 'none' | 'self' | 'other'
/** 'admin-flag-only': the admin fact without the member fact — the admin still counts as a member. */
type GroupRel = 'none' | 'outsider' | 'member' | 'admin' | 'admin-flag-only'

interface Variant {
  bot: BotRel
  botIsMain: boolean
  group: GroupRel
  round: boolean
  lastMain: boolean
  adminsAny: boolean
  userAsked: boolean
  raise: boolean
}

function* variants(): Generator<Variant> {
  for (const bot of ['none', 'self', 'other'] as const)
    for (const botIsMain of [false, true])
      for (const group of ['none', 'outsider', 'member', 'admin', 'admin-flag-only'] as const)
        for (const round of [false, true])
          for (const lastMain of [false, true])
            for (const adminsAny of [false, true])
              for (const userAsked of [false, true])
                for (const raise of [false, true]) yield { bot, botIsMain, group, round, lastMain, adminsAny, userAsked, raise }
}

function targetOf(v: Variant): Target {
  const t: Target = {
    botIsMain: v.botIsMain,
    roundRunning: v.round,
    wouldRemoveLastMain: v.lastMain,
    callerAdminsAnyGroup: v.adminsAny,
    userAsked: v.userAsked,
  }
  if (v.raise) t.raisesPreset = true
  if (v.bot === 'self') t.botId = ME
  if (v.bot === 'other') t.botId = OTHER
  if (v.group !== 'none') {
    t.groupId = 'group-1'
    t.callerIsGroupMember = v.group === 'member' || v.group === 'admin'
    t.callerIsGroupAdmin = v.group === 'admin' || v.group === 'admin-flag-only'
  }
  return t
}

/** The expected outcome, read off the table: 'allow' or the kind of refusal. */
function expected(caller: Caller, action: MatrixAction, v: Variant): 'allow' | Refusal {
  if (caller.kind === 'non-bot-session') return 'not-a-bot'
  if (caller.kind !== 'user' && caller.botId === undefined) return 'unidentified'
  const row = TABLE[action]
  if (row.target === 'bot' && v.bot === 'none') return 'no-bot'
  if (row.target === 'group' && v.group === 'none') return 'no-group'
  const rule = caller.kind === 'user' ? row.user : caller.kind === 'main-bot' ? row.main : row.bot
  switch (rule) {
    case 'yes':
      break
    case 'no':
      return row.no!
    case 'others':
      if (v.bot === 'self') return 'self'
      break
    case 'own':
      if (v.bot === 'other') return 'not-own'
      break
    case 'member':
      if (v.group === 'outsider') return 'not-member'
      break
    case 'admin':
      if (v.group !== 'admin' && v.group !== 'admin-flag-only') return 'not-admin'
      break
    case 'team-admin':
      if (!v.adminsAny) return 'team-memory'
      break
  }
  for (const g of row.guards) {
    // "only when the user asks": a Bot acting on ANOTHER Bot needs a turn the user opened
    if (g === 'asked' && caller.kind !== 'user' && v.bot === 'other' && !v.userAsked) return 'not-asked'
    // raising a preset is the person's act on the paired team page: every Bot is refused it
    if (g === 'raise' && caller.kind !== 'user' && v.raise) return 'raise'
    if (g === 'last-main' && v.lastMain) return 'last-main'
    if (g === 'round' && v.round) return 'round'
  }
  return 'allow'
}

const ALL_VARIANTS = [...variants()]

describe('decide: generated matrix (caller × action × target)', () => {
  it('covers every action and every variant', () => {
    expect(new Set(MATRIX_ACTIONS)).toEqual(new Set(Object.keys(TABLE)))
    expect(MATRIX_ACTIONS).toHaveLength(16)
    expect(TEAM_ACTIONS).toHaveLength(16 + TASK_ACTIONS.length)
    expect(ALL_VARIANTS).toHaveLength(3 * 2 * 5 * 2 * 2 * 2 * 2 * 2)
  })

  for (const { label, caller } of CALLERS) {
    for (const action of MATRIX_ACTIONS) {
      it(`${label} × ${action}`, () => {
        const mismatches: string[] = []
        for (const v of ALL_VARIANTS) {
          const want = expected(caller, action, v)
          const got = decide(caller, action, targetOf(v))
          const where = JSON.stringify(v)
          if (want === 'allow') {
            if (!got.allowed) mismatches.push(`${where}: expected allowed, got refused: ${got.reason}`)
            continue
          }
          if (got.allowed) {
            mismatches.push(`${where}: expected refusal (${want}), got allowed`)
            continue
          }
          if (got.reason.trim() === '') mismatches.push(`${where}: empty reason`)
          for (const re of REASON_MUST_MATCH[want]) {
            if (!re.test(got.reason)) mismatches.push(`${where}: reason for ${want} should match ${re}: ${got.reason}`)
          }
          if (
            (want === 'main-only' || want === 'not-admin' || want === 'not-member' || want === 'not-own' || want === 'team-memory' || want === 'self') &&
            !ACTION_WORD[action].test(got.reason)
          ) {
            mismatches.push(`${where}: reason should name the action (${ACTION_WORD[action]}): ${got.reason}`)
          }
        }
        expect(mismatches).toEqual([])
      })
    }
  }
})

describe('decide: properties across the matrix', () => {
  it('every refusal is one plain sentence or two, ending with a full stop, naming who may act', () => {
    const reasons = new Set<string>()
    for (const { caller } of CALLERS)
      for (const action of TEAM_ACTIONS)
        for (const v of ALL_VARIANTS) {
          const d = decide(caller, action, targetOf(v))
          if (!d.allowed) reasons.add(d.reason)
        }
    expect(reasons.size).toBeGreaterThan(10)
    for (const r of reasons) {
      expect(r).toMatch(/^[A-Z].*\.$/s)
      expect(r).not.toMatch(/\n|undefined|null|\[object/)
      expect(r).toMatch(/Main Bot|the user|The user|admin|member|that Bot|another Bot|list_bots|list_tasks|name or id/)
    }
  })

  it('botIsMain never changes an outcome; userAsked changes only a Bot acting on another Bot (update, delete, its memory)', () => {
    const changed: string[] = []
    const asked: string[] = []
    for (const { label, caller } of CALLERS)
      for (const action of TEAM_ACTIONS)
        for (const v of ALL_VARIANTS) {
          const base = JSON.stringify(decide(caller, action, targetOf(v)))
          if (JSON.stringify(decide(caller, action, targetOf({ ...v, botIsMain: !v.botIsMain }))) !== base)
            changed.push(`${label} × ${action} ${JSON.stringify(v)}`)
          if (JSON.stringify(decide(caller, action, targetOf({ ...v, userAsked: !v.userAsked }))) !== base) asked.push(`${caller.kind} ${action} ${v.bot}`)
        }
    expect(changed).toEqual([])
    expect([...new Set(asked)].sort()).toEqual(['main-bot delete_bot other', 'main-bot update_bot other', 'main-bot write_own_memory other'])
  })

  it('a plain DSH Session is refused every action, whatever the target says', () => {
    const allowed = TEAM_ACTIONS.flatMap((action) =>
      ALL_VARIANTS.filter((v) => decide({ kind: 'non-bot-session', botId: ME }, action, targetOf(v)).allowed).map((v) => `${action} ${JSON.stringify(v)}`),
    )
    expect(allowed).toEqual([])
  })

  it('is pure: the same facts give the same answer and the target is not changed', () => {
    const t = targetOf({ bot: 'other', botIsMain: true, group: 'admin', round: true, lastMain: true, adminsAny: true, userAsked: true, raise: true })
    const snapshot = JSON.stringify(t)
    for (const action of TEAM_ACTIONS) {
      expect(decide({ kind: 'bot', botId: ME }, action, t)).toEqual(decide({ kind: 'bot', botId: ME }, action, t))
    }
    expect(JSON.stringify(t)).toBe(snapshot)
  })
})

describe('decide: the spec examples, spelled out', () => {
  const main: Caller = { kind: 'main-bot', botId: 'bot-1' }
  const bot: Caller = { kind: 'bot', botId: 'bot-2' }
  const user: Caller = { kind: 'user' }

  it('only a Main Bot stops another Bot', () => {
    expect(decide(main, 'stop_bot', { botId: 'bot-2' })).toEqual({ allowed: true })
    expect(decide(bot, 'stop_bot', { botId: 'bot-1' })).toEqual({ allowed: false, reason: 'Only a Main Bot may stop another Bot. Ask a Main Bot or the user.' })
  })

  it('a Main Bot may stop or interrupt another Main Bot, never itself', () => {
    expect(decide(main, 'interrupt_bot', { botId: 'bot-3', botIsMain: true }).allowed).toBe(true)
    expect(decide(main, 'stop_bot', { botId: 'bot-1', botIsMain: true })).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/^You cannot stop yourself/),
    })
  })

  it('nobody messages itself', () => {
    expect(decide(bot, 'message_bot', { botId: 'bot-2' })).toMatchObject({ allowed: false, reason: expect.stringMatching(/^You cannot message yourself/) })
    expect(decide(bot, 'message_bot', { botId: 'bot-1' }).allowed).toBe(true)
  })

  it('the team is never without a Main Bot: not by the user, not by a Main Bot', () => {
    expect(decide(user, 'delete_bot', { botId: 'bot-1', botIsMain: true, wouldRemoveLastMain: true }).allowed).toBe(false)
    expect(decide(user, 'update_bot', { botId: 'bot-1', botIsMain: true, wouldRemoveLastMain: true }).allowed).toBe(false)
    expect(decide(main, 'update_bot', { botId: 'bot-1', botIsMain: true, wouldRemoveLastMain: true }).allowed).toBe(false)
    expect(decide(main, 'update_bot', { botId: 'bot-1', botIsMain: true }).allowed).toBe(true)
    expect(decide(user, 'delete_bot', { botId: 'bot-1', botIsMain: true }).allowed).toBe(true)
  })

  it('a Main Bot may update itself but not delete itself', () => {
    expect(decide(main, 'update_bot', { botId: 'bot-1' }).allowed).toBe(true)
    expect(decide(main, 'delete_bot', { botId: 'bot-1' })).toMatchObject({ allowed: false, reason: expect.stringMatching(/the user \(from the team page\)/) })
  })

  it('a group cannot be deleted mid-round, even by the user', () => {
    expect(decide(user, 'delete_group', { groupId: 'group-1', roundRunning: true }).allowed).toBe(false)
    expect(decide(main, 'delete_group', { groupId: 'group-1', roundRunning: false }).allowed).toBe(true)
  })

  it("a group's admin changes and posts to its own group only, and cannot delete it", () => {
    const own = { groupId: 'group-1', callerIsGroupAdmin: true, callerIsGroupMember: true }
    const elsewhere = { groupId: 'group-2', callerIsGroupAdmin: false, callerIsGroupMember: true }
    expect(decide(bot, 'update_group', own).allowed).toBe(true)
    expect(decide(bot, 'post_to_group', own).allowed).toBe(true)
    expect(decide(bot, 'delete_group', own).allowed).toBe(false)
    expect(decide(bot, 'update_group', elsewhere).allowed).toBe(false)
    expect(decide(bot, 'post_to_group', elsewhere).allowed).toBe(false)
  })

  it('own chat and own memory default to the caller when no Bot is named', () => {
    expect(decide(bot, 'read_own_chat', {}).allowed).toBe(true)
    expect(decide(bot, 'write_own_memory', {}).allowed).toBe(true)
    expect(decide(bot, 'read_own_chat', { botId: 'bot-1' }).allowed).toBe(false)
  })

  it('group admins and Main Bots write team memory', () => {
    expect(decide(bot, 'write_team_memory', { callerAdminsAnyGroup: true }).allowed).toBe(true)
    expect(decide(bot, 'write_team_memory', {}).allowed).toBe(false)
    expect(decide(main, 'write_team_memory', {}).allowed).toBe(true)
  })

  it("only the person sets a Bot's working folder: no Bot, not a Main Bot even with the user asking", () => {
    const facts = { setsWorkFolder: true, userAsked: true }
    expect(decide({ kind: 'user' }, 'update_bot', { botId: OTHER, ...facts })).toEqual({ allowed: true })
    expect(decide({ kind: 'user' }, 'create_bot', facts)).toEqual({ allowed: true })
    for (const target of [
      { botId: OTHER, ...facts },
      { botId: ME, ...facts },
    ]) {
      const verdict = decide({ kind: 'main-bot', botId: ME }, 'update_bot', target)
      expect(verdict.allowed ? '' : verdict.reason).toMatch(/^Only the person sets a Bot's working folder.*team page/)
    }
    const created = decide({ kind: 'main-bot', botId: ME }, 'create_bot', facts)
    expect(created.allowed ? '' : created.reason).toMatch(/^Only the person sets a Bot's working folder/)
    // a plain Bot is refused before the folder is even considered (only Main Bots change Bots)
    const plain = decide({ kind: 'bot', botId: ME }, 'update_bot', { botId: ME, ...facts })
    expect(plain.allowed ? '' : plain.reason).toMatch(/Only a Main Bot may change Bots/)
  })

  it('an unknown action (an untyped HTTP body) fails closed', () => {
    expect(decide(user, 'drop_tables' as TeamAction, {})).toMatchObject({ allowed: false, reason: expect.stringMatching(/Unknown team action "drop_tables"/) })
  })
})

// ---------------------------------------------------------------------------------------------
// The matrix by the turn: turn origin × source kind × action, for a full-access Main Bot. The
// turn's origin and mode come from the one origin rule (`chain.ts`); the facts the roster and the
// rooms service fill in are derived here the way they are (`userAsked`: the person opened the
// turn; `exceedsTurnMode`: a preset given, not a lowering, above the turn's mode); the outcomes are
// written here independently.
// ---------------------------------------------------------------------------------------------

const READ_ONLY_CHAIN: Chain = { hop: 1, budget: 'budget:eve#1', mode: 'read-only' }
const OPENERS: Array<{ label: string; source: unknown; inherited?: Chain; personTurn: boolean; mode: SandboxMode }> = [
  { label: "the person's message", source: { kind: 'user' }, personTurn: true, mode: 'danger-full-access' },
  {
    label: "a read-only Bot's message",
    source: deliverySource({ id: 'delivery-1', from: 'bot-9', kind: 'message' }, 'Eve', READ_ONLY_CHAIN),
    personTurn: false,
    mode: 'read-only',
  },
  {
    label: 'a stop notice',
    source: deliverySource({ id: 'delivery-2', from: 'bot-9', kind: 'stop' }, 'Eve', { hop: 1, budget: 'budget:x', mode: 'workspace-write' }),
    personTurn: false,
    mode: 'workspace-write',
  },
  { label: 'a room turn', source: roomTurnSource({ groupId: 'group-1', groupName: 'Crew' }, READ_ONLY_CHAIN), personTurn: false, mode: 'read-only' },
  {
    label: 'a scheduled run the person set',
    source: scheduleSource({ scheduleId: 'schedule-1', createdBy: 'user' }, { hop: 0, budget: 'budget:schedule-1#1' }),
    personTurn: false,
    mode: 'danger-full-access',
  },
  { label: 'a handoff resume', source: handoffSource(2, true, READ_ONLY_CHAIN), personTurn: false, mode: 'read-only' },
  {
    label: "DSH's background-job notice after a person's turn",
    source: { kind: 'plugin', plugin: 'tool-jobs', form: 'notice' },
    inherited: { hop: 0, budget: 'budget:s#1' },
    personTurn: false,
    mode: 'danger-full-access',
  },
  {
    label: "DSH's background-job notice, no chain known",
    source: { kind: 'plugin', plugin: 'tool-jobs', form: 'notice' },
    personTurn: false,
    mode: 'read-only',
  },
]

type TurnAct =
  | { action: 'create_bot'; preset: SandboxMode; main?: boolean; hidden?: boolean }
  | { action: 'update_bot'; bot: 'self' | 'other'; preset?: SandboxMode; main?: boolean; hidden?: boolean; current: SandboxMode }
  | { action: 'delete_bot' }
  | { action: 'create_group' | 'update_group'; admin: boolean }
  | { action: 'write_own_memory' }

const ACTS: Array<{
  label: string
  act: TurnAct
  expectIn: (personTurn: boolean, mode: SandboxMode) => 'allow' | 'person-turn' | 'above-turn' | 'not-asked' | 'raise'
}> = [
  ...(['read-only', 'workspace-write', 'danger-full-access'] as const).map((preset) => ({
    label: `create a Bot at ${preset}`,
    act: { action: 'create_bot', preset } as TurnAct,
    expectIn: (personTurn: boolean, mode: SandboxMode) => (personTurn || RANK[preset] <= RANK[mode] ? 'allow' : 'above-turn') as 'allow' | 'above-turn',
  })),
  { label: 'create a Main Bot', act: { action: 'create_bot', preset: 'read-only', main: true }, expectIn: (p) => (p ? 'allow' : 'person-turn') },
  { label: 'create a hidden Bot', act: { action: 'create_bot', preset: 'read-only', hidden: true }, expectIn: (p) => (p ? 'allow' : 'person-turn') },
  {
    label: 'lower itself to workspace-write',
    act: { action: 'update_bot', bot: 'self', preset: 'workspace-write', current: 'danger-full-access' },
    expectIn: () => 'allow',
  },
  { label: 'rename itself', act: { action: 'update_bot', bot: 'self', current: 'danger-full-access' }, expectIn: () => 'allow' },
  {
    label: 'make another Bot Main',
    act: { action: 'update_bot', bot: 'other', main: true, current: 'read-only' },
    expectIn: (p) => (p ? 'allow' : 'not-asked'),
  },
  {
    label: 'raise another Bot to workspace-write',
    act: { action: 'update_bot', bot: 'other', preset: 'workspace-write', current: 'read-only' },
    expectIn: (p) => (p ? 'raise' : 'not-asked'),
  },
  {
    label: 'hide itself',
    act: { action: 'update_bot', bot: 'self', hidden: true, current: 'danger-full-access' },
    expectIn: (p) => (p ? 'allow' : 'person-turn'),
  },
  { label: 'delete another Bot', act: { action: 'delete_bot' }, expectIn: (p) => (p ? 'allow' : 'not-asked') },
  { label: 'create a group with an admin', act: { action: 'create_group', admin: true }, expectIn: (p) => (p ? 'allow' : 'person-turn') },
  { label: 'create a group without an admin', act: { action: 'create_group', admin: false }, expectIn: () => 'allow' },
  { label: "change a group's admin", act: { action: 'update_group', admin: true }, expectIn: (p) => (p ? 'allow' : 'person-turn') },
  { label: "write another Bot's memory", act: { action: 'write_own_memory' }, expectIn: (p) => (p ? 'allow' : 'not-asked') },
]

const RANK: Record<SandboxMode, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 }

/** The facts the roster / rooms service fills in for one act in a turn (as they compute them). */
function turnTarget(act: TurnAct, personTurn: boolean, mode: SandboxMode): { action: TeamAction; target: Target } {
  const userAsked = personTurn
  switch (act.action) {
    case 'create_bot':
      return {
        action: 'create_bot',
        target: { userAsked, raisesPreset: false, exceedsTurnMode: RANK[act.preset] > RANK[mode], makesMain: act.main === true, hides: act.hidden === true },
      }
    case 'update_bot': {
      const lowers = act.preset !== undefined && RANK[act.preset] < RANK[act.current]
      return {
        action: 'update_bot',
        target: {
          botId: act.bot === 'self' ? ME : OTHER,
          userAsked,
          raisesPreset: act.preset !== undefined && RANK[act.preset] > RANK[act.current],
          exceedsTurnMode: act.preset !== undefined && !lowers && RANK[act.preset] > RANK[mode],
          makesMain: act.main === true,
          hides: act.hidden === true,
        },
      }
    }
    case 'delete_bot':
      return { action: 'delete_bot', target: { botId: OTHER, userAsked } }
    case 'create_group':
    case 'update_group':
      return { action: act.action, target: { groupId: 'group-1', userAsked, makesAdmin: act.admin } }
    case 'write_own_memory':
      return { action: 'write_own_memory', target: { botId: OTHER, userAsked } }
  }
}

const TURN_REASONS: Record<'person-turn' | 'above-turn' | 'not-asked' | 'raise', RegExp> = {
  'person-turn': /only in a turn the user opened/,
  'above-turn': /may not get more than that/,
  'not-asked': /only when the user asks/,
  raise: /Raising a Bot's permission preset is the person's act/,
}

describe('decide by the turn: turn origin × source kind × action (a full-access Main Bot)', () => {
  for (const o of OPENERS) {
    it(`in a turn opened by ${o.label}`, () => {
      const origin = turnOrigin([openerOf(o.source)], () => o.inherited)
      expect(origin.kind === 'person').toBe(o.personTurn)
      expect(turnMode('danger-full-access', origin, false)).toBe(o.mode)
      const mismatches: string[] = []
      for (const { label, act, expectIn } of ACTS) {
        const want = expectIn(o.personTurn, o.mode)
        const { action, target } = turnTarget(act, origin.kind === 'person', turnMode('danger-full-access', origin, false))
        const got = decide({ kind: 'main-bot', botId: ME }, action, target)
        if (want === 'allow' ? !got.allowed : got.allowed || !TURN_REASONS[want].test(got.reason))
          mismatches.push(`${label}: expected ${want}, got ${got.allowed ? 'allowed' : got.reason}`)
      }
      expect(mismatches).toEqual([])
    })
  }
})

describe('decide for the person over HTTP, unpaired (a Bot shell looks exactly like one)', () => {
  const unpaired: Caller = { kind: 'user', paired: false }
  const paired: Caller = { kind: 'user', paired: true }
  const raises: Array<[TeamAction, Target]> = [
    ['create_bot', { raisesPreset: true }],
    ['create_bot', { makesMain: true }],
    ['create_bot', { hides: true }],
    ['create_bot', { setsWorkFolder: true }],
    ['update_bot', { botId: OTHER, raisesPreset: true }],
    ['update_bot', { botId: OTHER, makesMain: true }],
    ['update_bot', { botId: OTHER, hides: true }],
    ['update_bot', { botId: OTHER, setsWorkFolder: true }],
    ['update_bot', { botId: OTHER, setsDelegatedWork: true }],
    ['update_bot', { botId: OTHER, changesInstructions: true }],
    ['create_group', { makesAdmin: true }],
    ['update_group', { groupId: 'group-1', makesAdmin: true }],
    ['write_own_memory', { botId: OTHER }],
    ['write_team_memory', {}],
  ]
  it('is refused every change that gives a Bot more authority, naming the paired team page; paired, each is allowed', () => {
    for (const [action, target] of raises) {
      const got = decide(unpaired, action, target)
      expect({ action, target, allowed: got.allowed }).toEqual({ action, target, allowed: false })
      expect(got.allowed ? '' : got.reason).toMatch(/paired team page/)
      expect(decide(paired, action, target)).toEqual({ allowed: true })
      expect(decide({ kind: 'user' }, action, target)).toEqual({ allowed: true })
    }
  })

  it('keeps everything else: a default-preset create, lowering, renaming, deleting, a group without a new admin', () => {
    for (const [action, target] of [
      ['create_bot', {}],
      ['update_bot', { botId: OTHER }],
      ['delete_bot', { botId: OTHER }],
      ['create_group', {}],
      ['update_group', { groupId: 'group-1' }],
      ['message_bot', { botId: OTHER }],
      ['post_to_group', { groupId: 'group-1' }],
    ] as Array<[TeamAction, Target]>)
      expect(decide(unpaired, action, target)).toEqual({ allowed: true })
  })
})

// ---------------------------------------------------------------------------------------------
// The task actions: caller × the caller's relation to the task × the other task facts, against a
// table written here independently of `decide` (the rows on `decide`: a Bot never reviews its own
// task; only the creator, a Main Bot or the person cancels or gives a task to another Bot; the
// person plans, reviews and reassigns only from a paired browser over HTTP).
// ---------------------------------------------------------------------------------------------

type TaskRel = 'none' | 'creator' | 'assignee' | 'both'
interface TaskVariant {
  named: boolean
  rel: TaskRel
  assignedToOther: boolean
  personReviews: boolean
}
type TaskRefusal =
  | 'no-task'
  | 'not-paired'
  | 'plan'
  | 'claim-other'
  | 'claim-person'
  | 'update'
  | 'submit'
  | 'submit-person'
  | 'review-own'
  | 'review'
  | 'cancel'
  | 'reassign'
  | 'ask-self'
  | 'ask-main'
  | 'answer-bot'
  | 'review-person'

const TASK_REASONS: Record<TaskRefusal, RegExp> = {
  'no-task': /^No task was named\. .*list_tasks/,
  'not-paired': /paired team page/,
  plan: /^Only a Main Bot may plan tasks for the team\./,
  'claim-other': /assigned to another Bot; only its assignee takes it/,
  'claim-person': /^The user does not take tasks/,
  update: /^You can update only a task you created or work on\./,
  submit: /^Only the Bot working on a task \(its assignee\) submits it/,
  'submit-person': /^The user does not submit tasks/,
  'review-own': /^A Bot never reviews its own task\./,
  review: /^Only a task's creator, a Main Bot or the user reviews it\./,
  cancel: /^Only a task's creator, a Main Bot or the user cancels it\./,
  reassign: /^Only a task's creator, a Main Bot or the user gives it to another Bot\./,
  'ask-self': /^The user answers questions in the inbox; the user does not ask them\./,
  'ask-main': /^A Main Bot asks the user in its own chat/,
  'answer-bot': /^Only the person answers a question or an approval, from the paired team page/,
  'review-person': /^The user reviews this task \(its acceptance says so\); no Bot may review it\./,
}

const TASK_CALLERS: Array<{ label: string; caller: Caller; who: 'user' | 'unpaired' | 'main' | 'bot' }> = [
  { label: 'user in process', caller: { kind: 'user' }, who: 'user' },
  { label: 'user, paired browser', caller: { kind: 'user', paired: true }, who: 'user' },
  { label: 'user, unpaired', caller: { kind: 'user', paired: false }, who: 'unpaired' },
  { label: 'main-bot', caller: { kind: 'main-bot', botId: ME }, who: 'main' },
  { label: 'bot', caller: { kind: 'bot', botId: ME }, who: 'bot' },
]

function taskExpected(who: 'user' | 'unpaired' | 'main' | 'bot', action: TaskAction, v: TaskVariant): 'allow' | TaskRefusal {
  if (action !== 'plan_tasks' && action !== 'ask_person' && !v.named) return 'no-task'
  const person = who === 'user' || who === 'unpaired'
  const creator = v.rel === 'creator' || v.rel === 'both'
  const assignee = v.rel === 'assignee' || v.rel === 'both'
  switch (action) {
    case 'plan_tasks':
      if (who === 'unpaired') return 'not-paired'
      return who === 'bot' ? 'plan' : 'allow'
    case 'claim_task':
      if (person) return 'claim-person'
      return v.assignedToOther ? 'claim-other' : 'allow'
    case 'update_task':
      return who === 'bot' && !creator && !assignee ? 'update' : 'allow'
    case 'submit_task':
      if (person) return 'submit-person'
      return assignee ? 'allow' : 'submit'
    case 'review_task':
      if (who === 'unpaired') return 'not-paired'
      if (person) return 'allow'
      if (v.personReviews) return 'review-person'
      if (assignee) return 'review-own'
      return who === 'main' || creator ? 'allow' : 'review'
    case 'cancel_task':
      if (who === 'unpaired') return 'not-paired'
      return who === 'bot' && !creator ? 'cancel' : 'allow'
    case 'reassign_task':
      if (who === 'unpaired') return 'not-paired'
      return who === 'bot' && !creator ? 'reassign' : 'allow'
    case 'ask_person':
      if (person) return 'ask-self'
      return who === 'main' ? 'ask-main' : 'allow'
    case 'answer_task':
      if (!person) return 'answer-bot'
      return who === 'unpaired' ? 'not-paired' : 'allow'
  }
}

function* taskVariants(): Generator<TaskVariant> {
  for (const named of [false, true])
    for (const rel of ['none', 'creator', 'assignee', 'both'] as const)
      for (const assignedToOther of [false, true]) for (const personReviews of [false, true]) yield { named, rel, assignedToOther, personReviews }
}

function taskTarget(v: TaskVariant): Target {
  return {
    ...(v.named ? { taskId: 'task-1' } : {}),
    callerCreatedTask: v.rel === 'creator' || v.rel === 'both',
    callerIsAssignee: v.rel === 'assignee' || v.rel === 'both',
    assignedToOther: v.assignedToOther,
    personReviews: v.personReviews,
  }
}

describe('decide: the task actions (caller × relation to the task × task facts)', () => {
  for (const { label, caller, who } of TASK_CALLERS) {
    for (const action of TASK_ACTIONS) {
      it(`${label} × ${action}`, () => {
        const mismatches: string[] = []
        for (const v of taskVariants()) {
          const want = taskExpected(who, action, v)
          const got = decide(caller, action, taskTarget(v))
          if (want === 'allow' ? !got.allowed : got.allowed || !TASK_REASONS[want].test(got.reason))
            mismatches.push(`${JSON.stringify(v)}: expected ${want}, got ${got.allowed ? 'allowed' : got.reason}`)
        }
        expect(mismatches).toEqual([])
      })
    }
  }

  it('a Bot never reviews its own task, not even a Main Bot that created it', () => {
    const own = { taskId: 'task-1', callerIsAssignee: true, callerCreatedTask: true }
    for (const caller of [
      { kind: 'main-bot', botId: ME },
      { kind: 'bot', botId: ME },
    ] as Caller[])
      expect(decide(caller, 'review_task', own)).toMatchObject({ allowed: false, reason: expect.stringMatching(/never reviews its own task/) })
  })

  it('a plain DSH Session is refused every task action', () => {
    for (const action of TASK_ACTIONS)
      for (const v of taskVariants()) expect(decide({ kind: 'non-bot-session', botId: ME }, action, taskTarget(v)).allowed).toBe(false)
  })
})

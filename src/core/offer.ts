/**
 * What a Bot is offered, derived from the one authority function: a role (Main or not, its standing
 * in groups, the kind of Session) → the team actions `decide` could ever allow it → the team tools.
 * `couldAllow` asks `decide` over every combination of target facts the role leaves open, so the
 * offer and the refusal come from the same rules; `TEAM_TOOLS` names the actions each tool serves.
 * Deliberately narrow: no wording of tools (each service words its own), no I/O; results are
 * memoised per role (a few thousand `decide` calls once).
 */
import { z } from 'zod'
import { decide, TEAM_ACTIONS, type Caller, type Target, type TeamAction } from './authority.ts'

/** Own chat, a group member's Session, or (later) a Session working one task. */
export const SESSION_KINDS = ['own', 'member', 'task'] as const
export type SessionKind = (typeof SESSION_KINDS)[number]

/** Standing in groups: in an own chat the highest over the Bot's groups; in a member Session, in that group. */
const GROUP_STANDINGS = ['none', 'member', 'admin'] as const

export const Role = z.object({ main: z.boolean(), groups: z.enum(GROUP_STANDINGS), kind: z.enum(SESSION_KINDS) }).strict()
export type Role = z.infer<typeof Role>

/** Every role, in a stable order (for tests and benches). */
export const ROLES: readonly Role[] = SESSION_KINDS.flatMap((kind) =>
  [true, false].flatMap((main) => GROUP_STANDINGS.filter((groups) => kind !== 'member' || groups !== 'none').map((groups) => ({ main, groups, kind }))),
)

export function sameRole(a: Role, b: Role): boolean {
  return a.main === b.main && a.groups === b.groups && a.kind === b.kind
}

/**
 * Each team tool: the actions it serves (offered when `decide` could allow any of them; none: every
 * Bot of the team may use it) and the Session kinds it belongs to. A task Session is offered its
 * own task's tools only: its brief is self-contained, and each tool is paid on its every request.
 */
export const TEAM_TOOLS: Readonly<Record<string, { actions: readonly TeamAction[]; kinds: readonly SessionKind[] }>> = {
  list_bots: { actions: ['list_bots', 'list_models'], kinds: ['own'] },
  manage_bot: { actions: ['create_bot', 'update_bot', 'delete_bot'], kinds: ['own'] },
  message_bot: { actions: ['message_bot', 'interrupt_bot'], kinds: ['own'] },
  stop_bot: { actions: ['stop_bot'], kinds: ['own'] },
  manage_group: { actions: ['create_group', 'update_group', 'delete_group'], kinds: ['own'] },
  post_to_group: { actions: ['post_to_group'], kinds: ['own'] },
  read_group_chat: { actions: ['read_group_chat'], kinds: ['own', 'member'] },
  read_own_chat: { actions: ['read_own_chat'], kinds: ['own'] },
  remember: { actions: ['write_own_memory'], kinds: ['own'] },
  recall: { actions: [], kinds: ['own'] },
  request_secret: { actions: [], kinds: ['own'] },
  add_schedule: { actions: [], kinds: ['own'] },
  list_schedules: { actions: [], kinds: ['own'] },
  remove_schedule: { actions: [], kinds: ['own'] },
  plan_tasks: { actions: ['plan_tasks'], kinds: ['own'] },
  list_tasks: { actions: ['plan_tasks', 'review_task'], kinds: ['own'] },
  review_task: { actions: ['review_task'], kinds: ['own'] },
  cancel_task: { actions: ['cancel_task'], kinds: ['own'] },
  submit_task: { actions: ['submit_task'], kinds: ['task'] },
  update_task: { actions: ['update_task'], kinds: ['task'] },
  ask_person: { actions: ['ask_person'], kinds: ['own'] },
}

/**
 * DSH's own tools a Session kind is not offered (denied on the agent's scope after its preset is
 * mounted): a member's Session is hidden and its turns are the room's, so nobody answers a
 * question or plan card there, and goals and orchestration loops belong in the Bot's own chat.
 */
export const DSH_TOOLS_DENIED: Readonly<Record<SessionKind, readonly string[]>> = {
  own: [],
  member: ['ask_user_question', 'exit_plan_mode', 'create_goal', 'get_goal', 'update_goal', 'workflow', 'ralph'],
  // A task Session is hidden too, and its one turn is the attempt: nobody answers a card there.
  task: ['ask_user_question', 'exit_plan_mode', 'create_goal', 'get_goal', 'update_goal', 'workflow', 'ralph'],
}

const SELF = 'offer:self'
const OTHER = 'offer:other'
/**
 * The values a role leaves open for the facts `decide` reads. A fact not named here (one a later
 * rule adds) is tried as unset and as true, so a new rule never hides a tool by being unknown.
 */
function factValues(role: Role): ReadonlyMap<string, readonly unknown[]> {
  const member = role.groups !== 'none'
  const admin = role.groups === 'admin'
  return new Map<keyof Target, readonly unknown[]>([
    ['botId', [undefined, SELF, OTHER]],
    ['groupId', [undefined, 'offer:group']],
    ['callerIsGroupAdmin', admin ? [false, true] : [false]],
    ['callerIsGroupMember', member ? [false, true] : [false]],
    ['callerAdminsAnyGroup', [admin]],
    // Only Main Bots (and the person) plan tasks, so only a Main Bot can be a task's creator.
    ['callerCreatedTask', role.main ? [false, true] : [false]],
  ])
}

/**
 * Whether `decide` could allow `action` to a Bot in `role`, with `fixed` facts and any others.
 * Searched over the facts `decide` actually reads on each path (a fact it never looks at cannot
 * change its answer), each over the values the role leaves open.
 */
export function couldAllow(role: Role, action: TeamAction, fixed: { botId?: 'self' | 'other' } = {}): boolean {
  const caller: Caller = { kind: role.main ? 'main-bot' : 'bot', botId: SELF }
  const known = factValues(role)
  const valuesOf = (key: string): readonly unknown[] =>
    key === 'botId' && fixed.botId ? [fixed.botId === 'self' ? SELF : OTHER] : (known.get(key as keyof Target) ?? [undefined, true])
  const search = (assigned: ReadonlyMap<string, unknown>): boolean => {
    const read: string[] = []
    const target = new Proxy({} as Target, {
      get: (_t, key) => {
        if (typeof key !== 'string') return undefined
        if (assigned.has(key)) return assigned.get(key)
        if (!read.includes(key)) read.push(key)
        return valuesOf(key)[0]
      },
    })
    if (decide(caller, action, target).allowed) return true
    const open = read.find((key) => valuesOf(key).length > 1)
    if (open === undefined) return false
    return valuesOf(open).some((value) => search(new Map([...assigned, [open, value]])))
  }
  return search(new Map())
}

/** What one role is offered: the actions `decide` could allow and the team tools that serve them. */
export interface Offer {
  role: Role
  actions: ReadonlySet<TeamAction>
  /** Team tool names, sorted. */
  tools: readonly string[]
  /** `couldAllow` for this role (e.g. a parameter only some roles may use). */
  may(action: TeamAction, fixed?: { botId?: 'self' | 'other' }): boolean
}

const offers = new Map<string, Offer>()

export function offerFor(role: Role): Offer {
  const key = `${role.main}:${role.groups}:${role.kind}`
  let offer = offers.get(key)
  if (!offer) {
    const r = { main: role.main, groups: role.groups, kind: role.kind }
    const actions = new Set(TEAM_ACTIONS.filter((a) => couldAllow(r, a)))
    const tools = Object.entries(TEAM_TOOLS)
      .filter(([, t]) => t.kinds.includes(r.kind) && (t.actions.length === 0 || t.actions.some((a) => actions.has(a))))
      .map(([name]) => name)
      .sort()
    const memo = new Map<string, boolean>()
    offer = {
      role: r,
      actions,
      tools,
      may: (action, fixed = {}) => {
        const k = `${action}:${fixed.botId ?? ''}`
        const known = memo.get(k)
        if (known !== undefined) return known
        const v = couldAllow(r, action, fixed)
        memo.set(k, v)
        return v
      },
    }
    offers.set(key, offer)
  }
  return offer
}

/**
 * Chains — the pure rules for work one Bot starts in another: the one rule from a turn's origin to
 * its (mode, budget, hop) (`turnOrigin`, `turnTerms`; the origin table is at `OriginKind`), mode
 * ranks, a scheduled run's chain, and work-budget accounting on a team-state draft. A chain's
 * `hop` counts Bot-to-Bot steps, `budget` names the work budget one request of the person opened,
 * `mode` is the lowest sandbox mode along it: delegation never amplifies authority.
 * Deliberately narrow: no I/O, no DSH calls, no clock; services decide when to draw and what to refuse.
 */
import { strictestLevel, type NetworkLevel } from './network.ts'
import { chainOf, readSource, SANDBOX_MODES, type Chain, type SandboxMode, type TeamSourceType } from './sources.ts'

export type { Chain, SandboxMode }

/** Budgets kept in team state: every open one, then the newest closed ones. */
export const MAX_BUDGETS = 200

/** Rank of a sandbox mode (higher = more authority); anything unknown ranks lowest. */
export function modeRank(mode: string | undefined): number {
  const i = (SANDBOX_MODES as readonly string[]).indexOf(mode ?? '')
  return Math.max(i, 0)
}

/** The lower of two modes (an absent one does not lower anything). */
export function lowerMode(a: SandboxMode | undefined, b: SandboxMode | undefined): SandboxMode | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return modeRank(a) <= modeRank(b) ? a : b
}

/** A sandbox mode as a known mode: unknown or custom ones become the lowest. */
export function asMode(mode: string | undefined): SandboxMode {
  return SANDBOX_MODES[modeRank(mode)]!
}

/** True when `next` gives more authority than `current` (unknown ranks lowest). */
export function raises(current: string | undefined, next: string | undefined): boolean {
  return modeRank(next) > modeRank(current)
}

// ── turn origins: one rule for every way a turn can start ───────────────────────────────────────

/**
 * The kinds of message that can open a Bot's turn, by source — the rows of the origin table:
 *
 * | kind          | opened by                                              | mode · budget · hop                          |
 * | ------------- | ------------------------------------------------------ | -------------------------------------------- |
 * | `person`      | the person's own message in the Bot's chat             | own preset · a fresh budget · 0              |
 * | `bot`         | a Bot's message, interrupt, reply or stop notice       | the chain's lowest · the chain's · the chain's |
 * | `room`        | a room member turn, a room's report, a post            | the chain's lowest · the chain's · the chain's |
 * | `schedule`    | a scheduled run (`scheduleChain`)                      | lowest of set / creator now / target · the task's own · 0 |
 * | `handoff`     | a new part's package (the chain rides its source)      | the previous part's last chain               |
 * | `bot` (task)  | an attempt of a task a Bot planned, a report to its creator | the planning chain's (one draw per attempt) |
 * | `person-task` | an attempt of a task the person created                | assignee's preset · the task's own budget · 0 |
 * | `answer`      | the person's answer to a Bot's question or approval (the inbox), an approval's grant turn | the asking chain's · the asking chain's · the asking chain's (a click is not a turn the person opened) |
 * | `other`       | DSH's own wake-ups (a background job ended), other      | the Session's last chain, until the person   |
 * |               | plugins' notices, the plugin's notices, a handoff      | speaks again; none known: read-only, no budget |
 * |               | written before chains rode it, a turn claiming nothing | to draw on                                   |
 *
 * Every row but `person` is a turn nobody at the screen opened. The target's own preset bounds
 * every row (`turnMode`), unless the person marked it to accept delegated work.
 */
export type OriginKind = 'person' | 'bot' | 'room' | 'schedule' | 'handoff' | 'person-task' | 'answer' | 'other'

/** The kinds whose message carries a chain of its own. */
export type ChainKind = Exclude<OriginKind, 'person' | 'other'>

/** What one message that opened a turn says about its authority. */
export type Opener = { kind: 'person' } | { kind: ChainKind; chain: Chain } | { kind: 'other' }

/** Every source this plugin writes, by the kind of turn it opens (a new source type must be placed here). */
const SOURCE_KINDS: Readonly<Record<TeamSourceType, ChainKind | 'other'>> = {
  message: 'bot',
  interrupt: 'bot',
  reply: 'bot',
  stop: 'bot',
  'room-post': 'room',
  'room-turn': 'room',
  'room-report': 'room',
  schedule: 'schedule',
  handoff: 'handoff',
  'room-notice': 'other',
  'room-open': 'other',
  bootstrap: 'other',
  'usage-notice': 'other',
  'secret-note': 'other',
  'role-notice': 'other',
  'network-notice': 'other',
  task: 'bot',
  'person-task': 'person-task',
  'task-report': 'bot',
  'task-notice': 'other',
  answer: 'answer',
}

/** What a claimed message's source says about the turn it opens (pure; any input). */
export function openerOf(source: unknown): Opener {
  if ((source as { kind?: unknown } | undefined)?.kind === 'user') return { kind: 'person' }
  const s = readSource(source)
  const kind = s ? SOURCE_KINDS[s.type] : 'other'
  const chain = chainOf(s)
  return kind === 'other' || !chain ? { kind: 'other' } : { kind, chain }
}

/**
 * What opened a turn: the person, or a chain — carried by the messages that opened it
 * (`from: 'message'`), inherited from the Session's last chain (`'session'`), or, with none known,
 * the read-only chain with no budget (`'nothing'`).
 */
export type TurnOrigin = { kind: 'person' } | { kind: 'chain'; chain: Chain; from: 'message' | 'session' | 'nothing' }

/** The budget of a turn that has none to draw on: every draw on it is refused, it is never opened. */
export const NO_BUDGET = 'budget:none'

/** The chain of a turn nothing known opened: the lowest mode and network, nothing to draw on. */
export const NO_CHAIN: Readonly<Chain> = Object.freeze({ hop: 0, budget: NO_BUDGET, mode: 'read-only', network: 'none' })

/**
 * The origin of a turn from the messages that opened it (pure): any message of the person makes it
 * the person's turn; else the chains they carry — the deepest hop, the first budget, the lowest
 * mode; else (nothing there carries authority) the Session's last chain, or `NO_CHAIN`. Only the
 * messages of the turn's first step count: a message steered in later never changes who opened it.
 */
export function turnOrigin(opening: readonly Opener[], sessionChain: () => Chain | undefined): TurnOrigin {
  if (opening.some((o) => o.kind === 'person')) return { kind: 'person' }
  const chains = opening.flatMap((o) => ('chain' in o ? [o.chain] : []))
  if (chains.length) return { kind: 'chain', chain: mergeChains(chains), from: 'message' }
  const inherited = sessionChain()
  return inherited ? { kind: 'chain', chain: inherited, from: 'session' } : { kind: 'chain', chain: NO_CHAIN, from: 'nothing' }
}

/** Several chains as one (pure): the deepest hop, the first budget, the lowest mode. */
function mergeChains(chains: readonly Chain[]): Chain {
  let hop = 0
  let budget: string | undefined
  let mode: SandboxMode | undefined
  let network: NetworkLevel | undefined
  let lowered = false
  for (const chain of chains) {
    hop = Math.max(hop, chain.hop)
    budget ??= chain.budget
    network = strictestLevel(network, chain.network)
    if (chain.mode) {
      mode = lowered ? lowerMode(mode, chain.mode) : chain.mode
      lowered = true
    }
  }
  return { hop, ...(budget ? { budget } : {}), ...(mode ? { mode } : {}), ...(network ? { network } : {}) }
}

/**
 * The chain a Session carries after a turn of this origin (pure): what a later turn nothing opened
 * inherits, and what a handoff package carries into the next part. The person's turn leaves hop 0,
 * its own budget and no mode (the Bot's own preset).
 */
export function chainAfterTurn(origin: TurnOrigin, personBudget: string): Chain {
  return origin.kind === 'person' ? { hop: 0, budget: personBudget } : origin.chain
}

/**
 * The mode a Bot's turn runs at (pure): its own for the person's turns and for a Bot that accepts
 * delegated work; otherwise the lower of its own and the chain's.
 */
export function turnMode(own: SandboxMode, origin: TurnOrigin, acceptsDelegatedWork: boolean): SandboxMode {
  if (origin.kind === 'person' || acceptsDelegatedWork) return own
  return lowerMode(own, origin.chain.mode) ?? own
}

/**
 * The network level a Bot's turn runs at (pure): its own for the person's turns and for a Bot that
 * accepts delegated work; otherwise the strictest of its own and the chain's (delegation never
 * widens the network).
 */
export function turnNetwork(own: NetworkLevel, origin: TurnOrigin, acceptsDelegatedWork: boolean): NetworkLevel {
  if (origin.kind === 'person' || acceptsDelegatedWork) return own
  return strictestLevel(own, origin.chain.network) ?? own
}

/** What a turn runs with: its mode, the budget its Bot-started work draws on, its hop (pure). */
export interface TurnTerms {
  mode: SandboxMode
  budget: string | undefined
  hop: number
}

/** The one rule: origin → (mode, budget, hop). `personBudget` is the budget a person's turn opens. */
export function turnTerms(origin: TurnOrigin, own: SandboxMode, acceptsDelegatedWork: boolean, personBudget: string): TurnTerms {
  const chain = chainAfterTurn(origin, personBudget)
  return { mode: turnMode(own, origin, acceptsDelegatedWork), budget: chain.budget, hop: chain.hop }
}

/**
 * The chain of one run of a scheduled task (pure): hop 0, the run's own budget, the lower of the
 * mode the task was set at and its creating Bot's preset now, and that Bot's network level now
 * (both absent: the person set it). The target's own bounds them again when the turn runs.
 */
export function scheduleChain(
  task: { id: string; mode?: SandboxMode | undefined },
  run: number,
  creatorModeNow: SandboxMode | undefined,
  creatorNetworkNow?: NetworkLevel,
): Chain {
  const mode = lowerMode(task.mode, creatorModeNow)
  return { hop: 0, budget: `budget:${task.id}#${run}`, ...(mode ? { mode } : {}), ...(creatorNetworkNow ? { network: creatorNetworkNow } : {}) }
}

// ── work budgets in team state ──────────────────────────────────────────────────────────────────

export interface Budget {
  id: string
  /** Who the budget was opened for: `user` (a prompt or room post), or a schedule id. */
  openedBy: string
  /** The Bot whose chat (or the group whose room) the person's message went to. */
  origin: string
  openedAt: string
  limit: number
  used: number
}

export type DrawVerdict = { ok: true; left: number } | { ok: false; reason: string }

const NO_BUDGET_REASON =
  'this turn was not started by the person or by work with a budget of its own (something else woke you, and no request of the person is known), so it cannot start work for other Bots. Tell the person what you would do; they can ask you in your own chat.'

/** Draw `n` Bot-started turns from a budget (pure over the list; mutates the found entry). */
export function draw(budgets: Budget[], id: string | undefined, n = 1): DrawVerdict {
  if (id === undefined) return { ok: true, left: Number.POSITIVE_INFINITY }
  if (id === NO_BUDGET) return { ok: false, reason: NO_BUDGET_REASON }
  const budget = budgets.find((b) => b.id === id)
  if (!budget)
    return { ok: false, reason: 'the work budget of the request that started this chain is gone (it was closed long ago). The person must ask again.' }
  if (budget.used + n > budget.limit) {
    return {
      ok: false,
      reason: `the work budget for this request is spent: the Bots already ran ${budget.used} of ${budget.limit} turns for it. Stop here and report what was done; the person must ask again to continue.`,
    }
  }
  budget.used += n
  return { ok: true, left: budget.limit - budget.used }
}

/**
 * Draw one Bot-started turn for `chain` on a team-state draft, inside the transaction that records
 * the work (pure over the draft). A chain without a budget draws nothing. `open` creates the
 * budget first when it does not exist yet (the first Bot-started turn of the person's message
 * opens it; one closed long ago by `boundBudgets` would be opened afresh); `force`
 * counts the turn even past the limit (what the plugin itself routes back: replies, reports), so
 * the turn it opens cannot start more.
 */
export function drawOn(
  draft: { budgets: Budget[] },
  chain: Chain,
  opts: { limit: number; open?: { origin: string; by?: string; at: string } | undefined; force?: boolean },
): DrawVerdict {
  const id = chain.budget
  if (id === undefined) return { ok: true, left: Number.POSITIVE_INFINITY }
  if (id === NO_BUDGET) return { ok: false, reason: NO_BUDGET_REASON }
  if (opts.open) openBudget(draft, chain, { limit: opts.limit, open: opts.open })
  const verdict = draw(draft.budgets, id)
  if (!verdict.ok && opts.force) {
    const budget = draft.budgets.find((b) => b.id === id)
    if (budget) budget.used++
  }
  return verdict
}

/**
 * Open the chain's budget if it is not there yet, drawing nothing (pure on the draft): for work
 * that will draw later (a question's answer), so a budget dropped meanwhile is gone, never new.
 */
export function openBudget(draft: { budgets: Budget[] }, chain: Chain, opts: { limit: number; open: { origin: string; by?: string; at: string } }): void {
  const id = chain.budget
  if (id === undefined || id === NO_BUDGET || draft.budgets.some((b) => b.id === id)) return
  draft.budgets.push({ id, openedBy: opts.open.by ?? 'user', origin: opts.open.origin, openedAt: opts.open.at, limit: opts.limit, used: 0 })
  draft.budgets = boundBudgets(draft.budgets)
}

/**
 * Whether the chain may start more work (pure): a budget that exists and is spent says no. Used by
 * actions that start Bot work without being a turn themselves (a post to a room: its member turns
 * draw later), so a spent budget stops the chain at its source.
 */
export function canStart(draft: { budgets: readonly Budget[] }, chain: Chain): DrawVerdict {
  if (chain.budget === NO_BUDGET) return { ok: false, reason: NO_BUDGET_REASON }
  const budget = chain.budget === undefined ? undefined : draft.budgets.find((b) => b.id === chain.budget)
  if (!budget) return { ok: true, left: Number.POSITIVE_INFINITY }
  if (budget.used >= budget.limit)
    return {
      ok: false,
      reason: `the work budget for this request is spent: the Bots already ran ${budget.used} of ${budget.limit} turns for it. Stop here and report what was done; the person must ask again to continue.`,
    }
  return { ok: true, left: budget.limit - budget.used }
}

/** Keep the newest `max` budgets (pure). Older ones are closed: a chain that still names one is refused. */
export function boundBudgets<T>(budgets: readonly T[], max = MAX_BUDGETS): T[] {
  return budgets.length <= max ? [...budgets] : budgets.slice(budgets.length - max)
}

/**
 * Chains — the pure rules for work one Bot starts in another: how deep it is, whose budget it
 * spends, and the authority it runs with.
 *
 * A **chain** begins with something the person did (a prompt in a Bot's chat, a post in a room, a
 * scheduled task they created) and continues through every Bot-started turn it causes: deliveries,
 * replies, room member turns, reports. Each such message carries the chain's `Chain` facts in its
 * source (`src/sources.ts`):
 * - `hop`: Bot-to-Bot steps so far (bounded by the hop limit);
 * - `budget`: the id of the work budget opened for the person's message — every Bot-started turn
 *   of the chain draws one unit from it, so one request of the person costs at most N Bot turns
 *   however the Bots delegate (create a group, post with a report, message each other …);
 * - `mode`: the lowest sandbox mode along the chain. Delegation never amplifies authority: a turn
 *   started by a chain runs at the lower of its own mode and the chain's, unless the person marked
 *   the target Bot to accept delegated work at its own preset.
 *
 * Owns: ranking sandbox modes, a preset's mode, merging the chains of the messages that opened a
 * turn, a turn's mode, and budget accounting on a team-state draft. (The chain a turn's send
 * carries is the roster's `chainFrom`: it knows the current turn.)
 *
 * Deliberately narrow: no I/O, no DSH calls, no clock (callers pass times). Services decide when
 * to draw and what to refuse; this module only says what the numbers are.
 */
import { SANDBOX_MODES, type Chain, type SandboxMode } from './sources.ts'

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

/** What opened a turn: the person (directly), or a chain of Bot-started work. */
export type TurnOrigin = { kind: 'person' } | { kind: 'chain'; chain: Chain }

/**
 * The origin of a turn from the chains of the messages it claimed (pure). Any message from the
 * person makes it the person's turn; otherwise the deepest hop, the first budget, the lowest mode.
 * `chains` holds `undefined` for a claimed message that is not Bot-started work of ours (another
 * plugin's notice): such a turn is still nobody's at the screen, at hop 0 without a budget.
 */
export function turnOrigin(claimed: readonly { person: boolean; chain?: Chain | undefined }[]): TurnOrigin {
  if (claimed.length === 0 || claimed.some((c) => c.person)) return { kind: 'person' }
  let hop = 0
  let budget: string | undefined
  let mode: SandboxMode | undefined
  let lowered = false
  for (const { chain } of claimed) {
    if (!chain) continue
    hop = Math.max(hop, chain.hop)
    budget ??= chain.budget
    if (chain.mode) {
      mode = lowered ? lowerMode(mode, chain.mode) : chain.mode
      lowered = true
    }
  }
  return { kind: 'chain', chain: { hop, ...(budget ? { budget } : {}), ...(mode ? { mode } : {}) } }
}

/**
 * The mode a Bot's turn runs at (pure): its own for the person's turns and for a Bot that accepts
 * delegated work; otherwise the lower of its own and the chain's.
 */
export function turnMode(own: SandboxMode, origin: TurnOrigin, acceptsDelegatedWork: boolean): SandboxMode {
  if (origin.kind === 'person' || acceptsDelegatedWork) return own
  return lowerMode(own, origin.chain.mode) ?? own
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

/** Draw `n` Bot-started turns from a budget (pure over the list; mutates the found entry). */
export function draw(budgets: Budget[], id: string | undefined, n = 1): DrawVerdict {
  if (id === undefined) return { ok: true, left: Number.POSITIVE_INFINITY }
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
  if (opts.open && !draft.budgets.some((b) => b.id === id)) {
    draft.budgets.push({ id, openedBy: opts.open.by ?? 'user', origin: opts.open.origin, openedAt: opts.open.at, limit: opts.limit, used: 0 })
    draft.budgets = boundBudgets(draft.budgets)
  }
  const verdict = draw(draft.budgets, id)
  if (!verdict.ok && opts.force) {
    const budget = draft.budgets.find((b) => b.id === id)
    if (budget) budget.used++
  }
  return verdict
}

/**
 * Whether the chain may start more work (pure): a budget that exists and is spent says no. Used by
 * actions that start Bot work without being a turn themselves (a post to a room: its member turns
 * draw later), so a spent budget stops the chain at its source.
 */
export function canStart(draft: { budgets: readonly Budget[] }, chain: Chain): DrawVerdict {
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

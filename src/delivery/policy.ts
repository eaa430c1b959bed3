/**
 * Delivery policy (pure): the hop rule, the per-turn send cap, a relayed message's header, the
 * start-up recovery decision for a pending record, the bounded log, the wording of replies, failure
 * notices and discard reports. Deliberately does not touch DSH, team state or the clock, nor decide
 * authority.
 */
import { shownName } from '../core/names.ts'
import type { Delivery } from '../store/index.ts'

export type DeliveryKind = Delivery['kind']

/** The model-facing text of a delivery: a header naming sender and kind, then the body (pure). */
export function messageText(
  kind: DeliveryKind,
  fromName: string,
  body: string,
  opts: { replyMode?: 'sender' | 'user' | undefined; hop: number; hopLimit: number },
): string {
  // A name saved before invisible characters were refused shows them escaped, never raw.
  fromName = shownName(fromName)
  const header = {
    message: `[Message from Bot ${fromName}]`,
    interrupt: `[Interruption from Bot ${fromName}: read this now, then continue or change course]`,
    stop: `[Bot ${fromName} stopped your previous turn]`,
    reply: `[Reply from Bot ${fromName}]`,
    report: `[Group "${fromName}" — replies to your post]`,
  }[kind]
  // A room's report keeps the shape rooms gave it before it went through the outbox.
  if (kind === 'report') return `${header}\n${body}`
  const lines = [header, body]
  if (kind === 'message') {
    lines.push(
      opts.replyMode === 'sender'
        ? `(Your final answer of this turn is sent back to ${fromName} automatically; ${fromName} cannot see this chat.)`
        : `(${fromName} asked you to answer the user here, in your own chat; nothing is sent back.)`,
    )
  }
  if (opts.hop >= opts.hopLimit) lines.push(`(This conversation chain reached the hop limit (${opts.hopLimit}): you cannot message other Bots from this turn.)`)
  return lines.join('\n\n')
}

export type SendVerdict = { ok: true; hop: number } | { ok: false; reason: string }

/** May a turn at `hop` that already sent `sent` messages send one more? (pure) */
export function checkSend(hop: number, sent: number, limits: { hopLimit: number; sendCap: number }): SendVerdict {
  const next = hop + 1
  if (next > limits.hopLimit) {
    return {
      ok: false,
      reason: `the hop limit (${limits.hopLimit}) is reached: this turn was started by a chain of ${hop} Bot-to-Bot messages, and a longer chain is not allowed. Answer with what you have instead.`,
    }
  }
  if (sent >= limits.sendCap) {
    return {
      ok: false,
      reason: `one turn may send at most ${limits.sendCap} Bot messages, and this turn already sent ${sent}. Finish this turn with what you have.`,
    }
  }
  return { ok: true, hop: next }
}

/** Facts about one undelivered record at start-up, read from the target's Session. */
export interface RecoveryFacts {
  /** A `user/message` carrying the delivery id is in the target's Session log. */
  inLog: boolean
  /** The message is in the target's inbox as DSH rebuilt it on resume. */
  inRestoredInbox: boolean
  /** The target Bot is gone (deleted, no own chat). */
  targetGone?: boolean
}

export type RecoveryAction = 'mark-delivered' | 'redrive' | 'send' | 'discard'

/**
 * What to do with a pending record after a restart (pure). In the log → it was delivered. In the
 * restored inbox → never send it twice; re-drive the queue (DSH does not run a restored queue by
 * itself). Nowhere → the crash came before DSH recorded it: send it now.
 */
export function recoveryAction(f: RecoveryFacts): RecoveryAction {
  if (f.inLog) return 'mark-delivered'
  if (f.targetGone) return 'discard'
  if (f.inRestoredInbox) return 'redrive'
  return 'send'
}

/** A delivered message whose sender wants the answer and whose reply is not recorded yet (pure). */
export function awaitsReply(d: Pick<Delivery, 'kind' | 'status' | 'replyMode' | 'reply'>): boolean {
  return d.kind === 'message' && d.replyMode === 'sender' && d.status === 'delivered' && d.reply === undefined
}

/** At most this many delivered messages are kept while their replies are owed (the oldest go first). */
export const AWAITING_REPLY_MAX = 500

/**
 * Keep all pending records, the messages still owed a reply (at most `AWAITING_REPLY_MAX`), and
 * the newest `keepFinished` other finished ones, in order (pure).
 */
export function boundDeliveries<T extends Pick<Delivery, 'status' | 'kind' | 'replyMode' | 'reply'>>(list: readonly T[], keepFinished: number): T[] {
  let owed = list.filter(awaitsReply).length
  const open = (d: T) => d.status === 'pending' || awaitsReply(d)
  let finished = list.filter((d) => !open(d)).length
  if (finished <= keepFinished && owed <= AWAITING_REPLY_MAX) return [...list]
  const out: T[] = []
  for (const d of list) {
    if (awaitsReply(d) && owed > AWAITING_REPLY_MAX) {
      owed--
      continue
    }
    if (!open(d) && finished > keepFinished) {
      finished--
      continue
    }
    out.push(d)
  }
  return out
}

/** How a turn that handled a reply-wanted message ended. */
export type TurnOutcome = { kind: 'completed'; text: string } | { kind: 'aborted'; why: string } | { kind: 'failed'; why: string }

/** The body routed back to a sender for its message (pure). */
export function replyBody(targetName: string, deliveryId: string, outcome: TurnOutcome): string {
  if (outcome.kind === 'completed') return outcome.text.trim() || `(${targetName} finished the turn without a text answer.)`
  const what = outcome.kind === 'aborted' ? 'was stopped before it finished' : 'failed'
  return `No answer: ${targetName}'s turn that handled your message (${deliveryId}) ${what} (${outcome.why}). Send the message again if it is still needed.`
}

/**
 * The report a sender gets when its queued message was discarded (pure). `cause` completes
 * "because …": `Main stopped Ada ("plan changed")` or `Ada was deleted`.
 */
export function discardReport(targetName: string, deliveryId: string, body: string, cause: string): string {
  const preview = body.length > 200 ? `${body.slice(0, 200)}…` : body
  return `Not delivered: your message to ${targetName} (${deliveryId}) was discarded before ${targetName} read it, because ${cause}. The message was: "${preview}". Send it again if it is still needed.`
}

/** Why a turn ended, in words (pure; tolerant of unknown reason shapes). */
export function turnOutcome(reason: unknown, finalText: string): TurnOutcome {
  const r = (reason ?? {}) as { kind?: string; reason?: { kind?: string; reason?: string }; error?: { message?: string } }
  if (r.kind === 'completed' || r.kind === 'max-tokens') return { kind: 'completed', text: finalText }
  if (r.kind === 'aborted') {
    const cause =
      r.reason?.kind === 'hook' && r.reason.reason ? r.reason.reason : r.reason?.kind === 'user' ? 'cancelled by the user' : (r.reason?.kind ?? 'cancelled')
    return { kind: 'aborted', why: cause }
  }
  // DSH closes a turn a crash cut, when it resumes the Session, as `interrupted`.
  if (r.kind === 'interrupted') return { kind: 'aborted', why: 'DSH stopped before the turn finished' }
  if (r.kind === 'error') return { kind: 'failed', why: r.error?.message ?? 'model error' }
  return { kind: 'failed', why: r.kind ?? 'unknown' }
}

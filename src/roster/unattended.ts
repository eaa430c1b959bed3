/**
 * Nobody is watching a Bot-started turn.
 *
 * A turn opened by another Bot, a room or a timer has no human at the screen, so an approval
 * request in it (a tool asking, bash asking to escalate its sandbox) would wait forever. In turns
 * no human opened (the roster's `TurnTracker` says who opened each turn) — and in every turn of a
 * Bot whose permission preset this DSH does not know (fail closed) — this answers approval
 * requests in code with 'rejected'. DSH's outcome carries no reason, so the tool result of that
 * call is rewritten to say why and what to do. The Session's approval policy is never switched:
 * that would inject model-visible notices and break the stable prompt prefix.
 *
 * Deliberately narrow: turns a human opened are left to DSH (the user answers in DSH Web), and it
 * decides nothing about authority beyond "nobody can approve here".
 *
 * Composes: both listeners are on the Bot agent's own scope (`agent.ctx`), so no other Session is
 * affected, and both are registered with `{prepend: true}`.
 * - `approval/request` (a waterfall): in a turn the person opened it calls `next()` and changes
 *   nothing; otherwise it answers 'rejected' without calling `next()`, so DSH Web's browser
 *   answerer (and any later listener) never sees the request — the prompt cannot hang.
 * - `tools/post-execute`: it calls `next()` first and only then, for a call it denied, replaces
 *   the accepted result's content with its note (keeping `additionalContexts`); every other result
 *   passes through as the later listeners left it.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { TurnInfo } from './turns.ts'

/** What the Bot reads instead of DSH's "the user rejected tool …" (pure). */
export function unattendedNote(who: string, reason: string | undefined): string {
  return [
    `Not approved: this turn was started by ${who}, not by the user at the screen, so nobody could approve`,
    reason ? ` this request ("${reason}").` : ' this request.',
    " It was denied automatically. Tell whoever asked that this step needs the user's approval,",
    ' or ask the user in your own chat; do not retry it in this turn.',
  ].join('')
}

/** What the Bot reads when its preset is unknown to this DSH (pure). */
export function unknownPresetNote(preset: string): string {
  return `Not approved: your permission preset "${preset}" is not known to this DSH, so nothing that needs approval runs (fail closed). Tell the user; they can choose a known preset on the team page.`
}

export interface GuardHooks {
  /** The current turn of this agent's Session. */
  turn(): TurnInfo | undefined
  /** The Bot's preset when this DSH does not know it (fail closed), else undefined. */
  unknownPreset(): string | undefined
  onDenied(who: string, toolName: string): void
}

/** Install the guard on one Bot agent's scoped context; returns the disposers of its listeners. */
export function guardUnattendedTurns(agentCtx: Context, hooks: GuardHooks): Array<() => unknown> {
  const denied = new Map<string, string>()

  const approvals = agentCtx.on(
    'approval/request',
    async (request, next) => {
      const unknown = hooks.unknownPreset()
      const turn = hooks.turn()
      if (!unknown && (!turn || turn.origin.kind === 'person')) return next()
      const note = unknown ? unknownPresetNote(unknown) : unattendedNote(turn!.who, request.reason)
      if (request.callId !== undefined) denied.set(String(request.callId), note)
      hooks.onDenied(unknown ? `an unknown preset (${unknown})` : turn!.who, request.toolName)
      return 'rejected'
    },
    { prepend: true },
  )

  const results = agentCtx.on(
    'tools/post-execute',
    async (exec, _result, next) => {
      const decision = await next()
      const note = denied.get(String(exec.callId))
      if (note === undefined || decision.kind !== 'accept') return decision
      denied.delete(String(exec.callId))
      const content = [{ type: 'text' as const, text: note }]
      return decision.additionalContexts ? { kind: 'accept', content, additionalContexts: decision.additionalContexts } : { kind: 'accept', content }
    },
    { prepend: true },
  )
  return [approvals, results]
}

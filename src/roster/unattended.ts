/**
 * Nobody watches a Bot-started turn: its approval requests (and every one of a Bot whose preset DSH
 * does not know) are answered 'rejected' in code, so no prompt hangs, and the tool result says why.
 * Deliberately leaves turns the person opened to DSH.
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

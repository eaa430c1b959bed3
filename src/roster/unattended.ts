/**
 * Nobody watches a Bot-started turn: its approval requests (and every one of a Bot whose preset DSH
 * does not know) are answered 'rejected' in code, so no prompt hangs, and the tool result says why;
 * the call waits for the person in the inbox (`wait`), later calls of that tool in the turn are
 * refused, and a turn carrying the person's one-shot grant gets exactly that call `allowed-once`.
 * Deliberately leaves turns the person opened to DSH.
 */
import type { Context } from '@deepseek-ai/cordis'
import { callKey } from '../core/call-key.ts'
import type { TurnGrant, TurnInfo } from './turns.ts'

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

/** What a later call of a tool reads once a call of it waits for approval in the same turn (pure). */
export function laterCallNote(tool: string): string {
  return `Not run: a ${tool} call in this turn needs the user's approval, so every ${tool} call is refused for the rest of this turn. End the turn or go on without it; if the user allows the waiting call, you get a new turn for it.`
}

/** A call that needed approval in a Bot-started turn. */
export interface WaitingCall {
  tool: string
  callId: string
  args: unknown
  /** The grant key of the call (`core/call-key.ts`). */
  key: string
  reason: string | undefined
  turn: TurnInfo
}

export interface GuardHooks {
  /** The current turn of this agent's Session. */
  turn(): TurnInfo | undefined
  /** The Bot's preset when this DSH does not know it (fail closed), else undefined. */
  unknownPreset(): string | undefined
  onDenied(who: string, toolName: string): void
  /** The call waits for the person (recorded in the inbox); the sentence the Bot reads. Absent: refused only. */
  wait?(call: WaitingCall): Promise<string | undefined>
  /** Use the turn's one-shot grant for this call: true once, for exactly the granted call. */
  useGrant?(grant: TurnGrant, call: { tool: string; key: string; callId: string }): boolean
}

/** Calls remembered between `tools/pre-execute` and their approval request (DSH's request has no arguments). */
const MAX_CALLS = 256

/** Install the guard on one Bot agent's scoped context; returns the disposers of its listeners. */
export function guardUnattendedTurns(agentCtx: Context, hooks: GuardHooks): Array<() => unknown> {
  const denied = new Map<string, string>()
  const calls = new Map<string, { tool: string; args: unknown }>()
  /** Tools refused for the rest of a turn (`<turn>:<tool>`). */
  const refused = new Set<string>()

  const preExecute = agentCtx.on(
    'tools/pre-execute',
    async (exec, next) => {
      const callId = String(exec.callId)
      calls.set(callId, { tool: exec.name, args: exec.arguments })
      if (calls.size > MAX_CALLS) calls.delete(calls.keys().next().value!)
      const turn = hooks.turn()
      if (turn && turn.origin.kind !== 'person' && refused.has(`${turn.turn}:${exec.name}`)) return { kind: 'deny', reason: laterCallNote(exec.name) }
      return next()
    },
    { prepend: true },
  )

  const approvals = agentCtx.on(
    'approval/request',
    async (request, next) => {
      const unknown = hooks.unknownPreset()
      const turn = hooks.turn()
      if (!unknown && (!turn || turn.origin.kind === 'person')) return next()
      const callId = request.callId === undefined ? undefined : String(request.callId)
      const call = callId === undefined ? undefined : calls.get(callId)
      const key = call ? callKey(call.tool, call.args) : undefined
      if (!unknown && turn!.grant && call && key && hooks.useGrant?.(turn!.grant, { tool: call.tool, key, callId: callId! })) return 'allowed-once'
      let note = unknown ? unknownPresetNote(unknown) : unattendedNote(turn!.who, request.reason)
      if (!unknown && call && key && hooks.wait)
        note = (await hooks.wait({ tool: call.tool, callId: callId!, args: call.args, key, reason: request.reason, turn: turn! })) ?? note
      if (!unknown) {
        refused.add(`${turn!.turn}:${request.toolName}`)
        if (call) refused.add(`${turn!.turn}:${call.tool}`)
        if (refused.size > MAX_CALLS) refused.delete(refused.values().next().value!)
      }
      if (callId !== undefined) denied.set(callId, note)
      hooks.onDenied(unknown ? `an unknown preset (${unknown})` : turn!.who, request.toolName)
      return 'rejected'
    },
    { prepend: true },
  )

  const results = agentCtx.on(
    'tools/post-execute',
    async (exec, _result, next) => {
      const decision = await next()
      calls.delete(String(exec.callId))
      const note = denied.get(String(exec.callId))
      if (note === undefined || decision.kind !== 'accept') return decision
      denied.delete(String(exec.callId))
      const content = [{ type: 'text' as const, text: note }]
      return decision.additionalContexts ? { kind: 'accept', content, additionalContexts: decision.additionalContexts } : { kind: 'accept', content }
    },
    { prepend: true },
  )
  return [preExecute, approvals, results]
}

/**
 * Nobody is watching a Bot-started turn.
 *
 * A turn opened by another Bot, a room or a timer has no human at the screen, so an approval
 * request in it (a tool asking, bash asking to escalate its sandbox) would wait forever. This
 * module classifies each turn of a Bot's agent by the messages that opened it and, in turns no
 * human opened, answers approval requests in code through DSH's `approval/request` waterfall
 * ('rejected', registered with `prepend` so it runs before DSH Web's browser answerer). DSH's
 * outcome carries no reason, so the tool result of that call is rewritten (`tools/post-execute`)
 * to say why and what to do. The Session's approval policy is never switched: that would inject
 * model-visible notices and break the stable prompt prefix.
 *
 * Deliberately narrow: turns a human opened are left to DSH (the user answers in DSH Web).
 */
import type { Context } from '@deepseek-ai/cordis'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { readSource } from '../sources.ts'

export type Opener = { kind: 'human' } | { kind: 'unattended'; who: string }

/** Who opened a turn, from the sources of the messages it claimed (pure). */
export function classifyOpener(sources: readonly UserMessage['source'][]): Opener {
  if (sources.length === 0 || sources.some((s) => s.kind === 'user')) return { kind: 'human' }
  const first = sources[0]!
  const s = readSource(first)
  if (s && 'fromName' in s && s.fromName) return { kind: 'unattended', who: `Bot ${s.fromName}` }
  if (s && 'groupName' in s) return { kind: 'unattended', who: `group ${s.groupName}` }
  if (s) return { kind: 'unattended', who: 'the Bot team plugin' }
  return { kind: 'unattended', who: first.kind === 'plugin' ? `the ${first.plugin} plugin` : `a ${first.kind} message` }
}

/** What the Bot reads instead of DSH's "the user rejected tool …" (pure). */
export function unattendedNote(who: string, reason: string | undefined): string {
  return [
    `Not approved: this turn was started by ${who}, not by the user at the screen, so nobody could approve`,
    reason ? ` this request ("${reason}").` : ' this request.',
    ' It was denied automatically. Tell whoever asked that this step needs the user\'s approval,',
    ' or ask the user in your own chat; do not retry it in this turn.',
  ].join('')
}

/** Install the guard on one Bot agent's scoped context; returns the disposers of its listeners. */
export function guardUnattendedTurns(agentCtx: Context, onDenied: (who: string, toolName: string) => void): Array<() => unknown> {
  const openers = new Map<number, UserMessage['source'][]>()
  let currentTurn = -1
  const denied = new Map<string, { who: string; reason: string | undefined }>()

  const claimed = agentCtx.on('agent/inbox/claimed', ({ message, turn }) => {
    if (turn !== currentTurn) {
      openers.delete(currentTurn)
      currentTurn = turn
    }
    const list = openers.get(turn) ?? []
    list.push(message.source)
    openers.set(turn, list)
  })

  const approvals = agentCtx.on('approval/request', async (request, next) => {
    const opener = classifyOpener(openers.get(currentTurn) ?? [])
    if (opener.kind === 'human') return next()
    if (request.callId !== undefined) denied.set(String(request.callId), { who: opener.who, reason: request.reason })
    onDenied(opener.who, request.toolName)
    return 'rejected'
  }, { prepend: true })

  const results = agentCtx.on('tools/post-execute', async (exec, result, next) => {
    const decision = await next()
    const hit = denied.get(String(exec.callId))
    if (!hit || decision.kind !== 'accept') return decision
    denied.delete(String(exec.callId))
    const note = [{ type: 'text' as const, text: unattendedNote(hit.who, hit.reason) }]
    return decision.additionalContexts ? { kind: 'accept', content: note, additionalContexts: decision.additionalContexts } : { kind: 'accept', content: note }
  }, { prepend: true })
  return [claimed, approvals, results]
}

/**
 * Who asks a service to act: the person (`user`: the HTTP API behind the fence, the team page) or
 * a Bot, named by the Session its tool runs in. The service that acts resolves it to a `Caller`
 * (`core/authority.ts`) and decides; a tool adapter only says which Session called.
 *
 * Deliberately narrow: a type and the one adapter from a tool call's execution context; no rules.
 */
export type Requester = { kind: 'user' } | { kind: 'bot'; sessionId: string }

/** The person, through a route of the plugin's HTTP API. */
export const USER: Requester = Object.freeze({ kind: 'user' })

/** The Bot Session a tool call runs in (no Session: an empty id, which every service refuses). */
export function requesterOf(exec: { agent?: { id: unknown } | undefined }): Requester {
  return { kind: 'bot', sessionId: exec.agent ? String(exec.agent.id) : '' }
}

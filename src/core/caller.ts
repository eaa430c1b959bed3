/**
 * Who asks a service to act: the person (`user`: over the HTTP API behind the fence, paired or not;
 * or in process) or a Bot, named by the Session its tool runs in. The service that acts resolves it
 * to a `Caller` (`core/authority.ts`) and decides; a tool adapter only says which Session called.
 *
 * Deliberately narrow: a type and the one adapter from a tool call's execution context; no rules.
 */
export type Requester = { kind: 'user'; paired?: boolean } | { kind: 'bot'; sessionId: string }

/** The person in process (the plugin itself: the first Main Bot, the person's scheduled tasks). */
export const USER: Requester = Object.freeze({ kind: 'user' })

/**
 * The person through a route of the plugin's HTTP API, paired or not: a Bot's shell on loopback
 * is an unpaired client, so the service refuses it what gives a Bot more authority (`decide`).
 */
export function personOverHttp(paired: boolean): Requester {
  return { kind: 'user', paired }
}

/** The Bot Session a tool call runs in (no Session: an empty id, which every service refuses). */
export function requesterOf(exec: { agent?: { id: unknown } | undefined }): Requester {
  return { kind: 'bot', sessionId: exec.agent ? String(exec.agent.id) : '' }
}

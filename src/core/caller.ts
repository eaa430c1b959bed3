/**
 * Who asks a service to act: the person (the HTTP API behind the fence, the team page) or a Bot,
 * named by the Session its tool runs in. The service that acts decides authority from it
 * (`roster/authority.ts`); a tool adapter only says which Session called.
 *
 * Deliberately narrow: a type and the one adapter from a tool call's execution context; no rules.
 */
export type Requester = { kind: 'person' } | { kind: 'bot'; sessionId: string }

/** The Bot Session a tool call runs in (no Session: an empty id, which every service refuses). */
export function requesterOf(exec: { agent?: { id: unknown } | undefined }): Requester {
  return { kind: 'bot', sessionId: exec.agent ? String(exec.agent.id) : '' }
}

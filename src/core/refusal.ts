/**
 * Refusals: how a service says no (`TeamRefusal` with a code) and how a tool turns it into an answer
 * the model reads ("Refused: …"); a store refusal is one too, anything else propagates. Every refusal
 * answered is reported to `listenToRefusals` listeners (the diagnostics log).
 */
import { isStoreError } from './store-errors.ts'

export type RefusalCode = 'forbidden' | 'invalid' | 'not-found' | 'unavailable' | 'limit'

export class TeamRefusal extends Error {
  readonly code: RefusalCode
  constructor(code: RefusalCode, message: string) {
    super(message)
    this.code = code
  }
}

/** The output spec of every team tool: one string, shown as text. */
export const textOutput = {
  schema: { type: 'string' },
  render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }],
} as const

/** Where a refusal was answered: a Bot's tool, or the HTTP API. */
export type RefusalChannel = 'tool' | 'http'
type RefusalListener = (error: Error, channel: RefusalChannel) => void
const refusalListeners = new Set<RefusalListener>()

/**
 * Be told of every refusal answered (the diagnostics log listens). Returns the disposer: register
 * it as a Cordis effect of the listening service. A listener that throws is ignored.
 */
export function listenToRefusals(listener: RefusalListener): () => void {
  refusalListeners.add(listener)
  return () => {
    refusalListeners.delete(listener)
  }
}

/** Tell the listeners about a refusal that was answered (the tool adapter below, the HTTP router). */
export function reportRefusal(error: Error, channel: RefusalChannel): void {
  for (const listener of refusalListeners) {
    try {
      listener(error, channel)
    } catch {
      // A listener's failure must not change the answer.
    }
  }
}

/** Run a team action for a tool; a refusal becomes the answer. */
export async function answer(run: () => Promise<string>): Promise<string> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof TeamRefusal) {
      reportRefusal(error, 'tool')
      return `Refused: ${error.message}`
    }
    if (isStoreError(error)) {
      reportRefusal(error, 'tool')
      return `Refused: the team could not be saved (${error.message}).`
    }
    throw error
  }
}

/**
 * One side call of the context steward (the decision, the handoff note): a direct `ctx.llm.stream`
 * request outside any Session's loop, `purpose: 'compaction'`, with a deadline, bounded output and
 * the usage the provider reports. Its system text starts with a fixed label
 * (`STEWARD_SYSTEM_PREFIX`, `NOTE_SYSTEM_PREFIX`) by which the scripted model tells the two calls
 * apart from the loop and from DSH's own compaction; the usage ledger records it under its own
 * purpose (`steward`, `handoff-note`) through the one side-call tag (`src/usage/side-call.ts`).
 *
 * Deliberately does not: retry, parse the answer or record anything (the service counts and
 * reports), or name the Bot's Session (`sessionId` is DSH's per-Session routing and replay
 * metadata; a side call is not that Session's request — the service reports which one it was for). A provider error, a timeout or an abort resolves as `{ error }`, never a throw.
 */
import type { Context } from '@deepseek-ai/cordis'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SOURCE_PLUGIN } from '../core/sources.ts'
import { sideCall as tagSideCall, type SideCallTag } from '../core/side-call-tag.ts'

export interface SideCallRequest {
  provider: string
  model: string
  system: string
  user: string
  maxTokens: number
  deadlineMs: number
  /** How the usage ledger files this call (purpose, Bot, part). */
  tag: SideCallTag
}

export interface SideCallUsage {
  /** Input tokens, cached or not. */
  input: number
  output: number
}

export interface SideCallResult {
  text: string
  /** The provider stopped by itself (not cut off at max tokens). */
  complete: boolean
  usage: SideCallUsage
  error?: string
}

export async function sideCall(ctx: Context, req: SideCallRequest): Promise<SideCallResult> {
  const usage: SideCallUsage = { input: 0, output: 0 }
  let text = ''
  let complete = false
  try {
    const stream = ctx.llm.stream(tagSideCall({
      provider: req.provider,
      model: req.model,
      system: req.system,
      messages: [createUserMessage({ content: [{ type: 'text', text: req.user }], source: { kind: 'plugin', plugin: SOURCE_PLUGIN } })],
      maxTokens: req.maxTokens,
      purpose: 'compaction',
      signal: AbortSignal.timeout(req.deadlineMs),
    }, req.tag))
    for await (const chunk of stream) {
      if (chunk.type === 'text-delta') text += chunk.text
      else if (chunk.type === 'usage') {
        usage.input += chunk.usage.inputTokens + (chunk.usage.cacheReadTokens ?? 0)
        usage.output += chunk.usage.outputTokens
      } else if (chunk.type === 'finish') complete = chunk.reason.kind === 'stop'
    }
    return { text, complete, usage }
  } catch (error) {
    return { text, complete: false, usage, error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * The plugin's side calls: direct `ctx.llm.stream` requests outside any Session's loop (steward,
 * note, review) with a deadline, bounded output and the usage the provider reports, tagged so the
 * usage ledger files each under its purpose and Bot. An error, a timeout or an abort (thrown, or the
 * stream's finish reason) resolves as `{ error }`. Deliberately no retries, no parsing.
 */
import type { Context } from '@deepseek-ai/cordis'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SOURCE_PLUGIN } from '../core/sources.ts'
import { errorText } from '../core/errors.ts'

export interface SideCallTag {
  /** e.g. `memory-review`, `steward`, `handoff-note`. */
  purpose: string
  bot?: string | undefined
  group?: string | undefined
  part?: number | undefined
}

const tags = new WeakMap<object, SideCallTag>()

/** Mark `options` as one of the plugin's side calls; returns the same object. */
export function tagSideCall<T extends object>(options: T, tag: SideCallTag): T {
  tags.set(options, tag)
  return options
}

/** The tag of a request's options, if the plugin marked it. */
export function sideCallTag(options: object): SideCallTag | undefined {
  return tags.get(options)
}

export interface SideCallRequest {
  provider: string
  model: string
  system: string
  user: string
  maxTokens: number
  deadlineMs: number
  /** How the usage ledger files this call (purpose, Bot, part). */
  tag: SideCallTag
  /** DSH's request purpose (`compaction` keeps DSH's own listeners off the steward's calls). */
  purpose?: 'compaction'
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
  let failed: string | undefined
  try {
    const stream = ctx.llm.stream(
      tagSideCall(
        {
          provider: req.provider,
          model: req.model,
          system: req.system,
          messages: [createUserMessage({ content: [{ type: 'text', text: req.user }], source: { kind: 'plugin', plugin: SOURCE_PLUGIN } })],
          maxTokens: req.maxTokens,
          ...(req.purpose ? { purpose: req.purpose } : {}),
          signal: AbortSignal.timeout(req.deadlineMs),
        },
        req.tag,
      ),
    )
    for await (const chunk of stream) {
      if (chunk.type === 'text-delta') text += chunk.text
      else if (chunk.type === 'usage') {
        usage.input += chunk.usage.inputTokens + (chunk.usage.cacheReadTokens ?? 0)
        usage.output += chunk.usage.outputTokens
      } else if (chunk.type === 'finish') {
        complete = chunk.reason.kind === 'stop'
        // DSH reports a provider failure (or a timeout) as the stream's finish reason, not a throw.
        if (chunk.reason.kind === 'error' || chunk.reason.kind === 'aborted') failed = chunk.reason.failure.message || chunk.reason.kind
      }
    }
    return { text, complete, usage, ...(failed === undefined ? {} : { error: failed }) }
  } catch (error) {
    return { text, complete: false, usage, error: errorText(error) }
  }
}

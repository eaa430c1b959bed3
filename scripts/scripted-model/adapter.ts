// Scripted model — in-process form: an `LlmAdapter` for tests that mount real DSH core services in a
// Cordis `new Context()` and call `ctx.llm.registerAdapter(['mock'], adapter)`.
// Owns: turning a ScriptedModel reply into a grammatical StreamChunk sequence (block-start / delta /
// block-end per block, usage once, exactly one finish), failures thrown as LlmError exactly as
// @deepseek-ai/dsh-llm-deepseek throws them (LlmRuntime turns them into a terminal error finish), and
// resolveModel with a configurable context window.
// Deliberately does not: talk HTTP (server.ts), decide replies (format.ts), or retry.

import { CONTEXT_WINDOW_EXCEEDED_CODE, CallId, EMPTY_RESPONSE_CODE, LlmAdapter, LlmError } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, LlmModelInfo, LlmResolvedModelInfo, StreamChunk, TokenUsage } from '@deepseek-ai/dsh-llm'
import { ScriptedModel, argsText, failureFacts, requestFromOptions, resolveUsage, toolCallIds } from './format.ts'
import type { RecordedRequest, Reply, Script, ScriptMap } from './format.ts'

export interface ScriptedAdapterOptions {
  /** Overrides every script's contextWindow for resolveModel. */
  contextWindow?: number
}

/** Resolve after `ms`, or reject with an ABORTED LlmError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError())
      return
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      clearTimeout(t)
      reject(abortedError())
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function abortedError(): LlmError {
  return new LlmError('scripted model request aborted by caller', 'ABORTED')
}

/** Map a scripted failure to the LlmError the deepseek adapter would throw for the equivalent HTTP reply. */
export function failureError(reply: Extract<Reply, { fail: unknown }>, req: RecordedRequest): LlmError {
  const f = failureFacts(reply, req)
  const code =
    reply.fail === 'context-overflow' ? CONTEXT_WINDOW_EXCEEDED_CODE : f.status === 429 ? 'RATE_LIMIT' : f.status >= 500 ? 'SERVER' : `HTTP_${f.status}`
  return new LlmError(f.message, code, { status: f.status })
}

/** The stream chunks for a successful reply (text and/or tool calls). */
export function replyChunks(reply: Exclude<Reply, { fail: unknown }>, req: RecordedRequest): StreamChunk[] {
  const chunks: StreamChunk[] = []
  let index = 0
  if (reply.reasoning !== undefined && reply.reasoning.length > 0) {
    const i = index++
    chunks.push({ type: 'block-start', index: i, blockType: 'reasoning' })
    chunks.push({ type: 'reasoning-delta', index: i, text: reply.reasoning })
    chunks.push({ type: 'block-end', index: i, block: { type: 'reasoning', text: reply.reasoning } })
  }
  const text = reply.text ?? ''
  if (text.length > 0) {
    const i = index++
    chunks.push({ type: 'block-start', index: i, blockType: 'text' })
    chunks.push({ type: 'text-delta', index: i, text })
    chunks.push({ type: 'block-end', index: i, block: { type: 'text', text } })
  }
  const calls = 'toolCalls' in reply ? reply.toolCalls : []
  const ids = toolCallIds(reply, req)
  calls.forEach((c, n) => {
    const i = index++
    const id = CallId(ids[n]!)
    const args = argsText(c.args)
    chunks.push({ type: 'block-start', index: i, blockType: 'tool-call' })
    chunks.push({ type: 'tool-call-delta', index: i, id, name: c.name, argumentsDelta: args })
    chunks.push({ type: 'block-end', index: i, block: { type: 'tool-call', id, name: c.name, arguments: args } })
  })
  const u = resolveUsage(req, reply)
  const usage: TokenUsage = { inputTokens: u.input, outputTokens: u.output, ...(u.cached > 0 ? { cacheReadTokens: u.cached } : {}) }
  chunks.push({ type: 'usage', usage })
  if (index === 0) {
    // The deepseek adapter classifies a completed response with no blocks this way; mirror it.
    chunks.push({
      type: 'finish',
      reason: { kind: 'error', failure: { message: 'model returned a completed response with no content', code: EMPTY_RESPONSE_CODE } },
    })
  } else {
    chunks.push({ type: 'finish', reason: { kind: calls.length > 0 ? 'tool-calls' : 'stop' } })
  }
  return chunks
}

export class ScriptedAdapter extends LlmAdapter {
  readonly model: ScriptedModel
  private readonly fixedWindow: number | undefined

  constructor(model: ScriptedModel | Script | ScriptMap = {}, options: ScriptedAdapterOptions = {}) {
    super()
    this.model = model instanceof ScriptedModel ? model : new ScriptedModel(model)
    this.fixedWindow = options.contextWindow
  }

  /** Every request this adapter's ScriptedModel recorded (shared with a server using the same model). */
  get requests(): RecordedRequest[] {
    return this.model.requests
  }

  override resolveModel(provider: string, model: string): Promise<LlmResolvedModelInfo> {
    return Promise.resolve({
      provider,
      id: model,
      name: model,
      inputModalities: ['text'],
      context: { contextWindow: this.fixedWindow ?? this.model.contextWindow(model) },
    })
  }

  override listModels(provider: string): Promise<readonly LlmModelInfo[]> {
    const ids = Object.keys(this.model.remaining()).filter((k) => k !== '*')
    return Promise.resolve(ids.map((id) => ({ provider, id, name: id, inputModalities: ['text'] as const })))
  }

  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const req = requestFromOptions(options)
    const reply = this.model.respond(req)
    const signal = options.signal
    if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs, signal)
    if ('fail' in reply) {
      if (reply.fail === 'stall') {
        // Hold the stream open: until the caller aborts, or stallMs elapses (then the stream "closes").
        await sleep(reply.stallMs ?? 2 ** 31 - 1, signal)
        throw new LlmError('scripted model stream stalled and closed without completing', 'STREAM_CLOSED')
      }
      throw failureError(reply, req)
    }
    for (const chunk of replyChunks(reply, req)) {
      if (signal?.aborted) throw abortedError()
      yield chunk
    }
  }
}

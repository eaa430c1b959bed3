// Scripted model — the script format, the ScriptedModel core and request helpers.
// Owns: the types a test or demo writes (Script, Rule, Reply, Usage), the per-model step cursors,
// request recording, normalisation of both request shapes (DSH in-process `GenerateOptions` and the
// OpenAI/DeepSeek chat-completions wire body) into one `RecordedRequest`, and read helpers that scan
// requests correctly (DSH appends a runtime-context user message AFTER the prompt, and in rc.8 tool
// results reach in-process adapters as role:'user' messages holding 'tool-result' blocks).
// Deliberately pure: no I/O, no timers, no DSH runtime imports. Streaming, HTTP and failure
// encoding live in adapter.ts and server.ts.

/** Token counts as DSH records them: `input` is UNCACHED input, `cached` is cache-read input (disjoint). */
export interface Usage {
  input?: number
  output?: number
  cached?: number
}

export interface ToolCallSpec {
  name: string
  /** Any JSON value; a string is sent verbatim as the raw arguments text. */
  args?: unknown
  id?: string
}

/** How a failure is produced. Both forms produce the same DSH failure code. */
export type FailKind = 'context-overflow' | 'server-error' | 'rate-limit' | 'stall'

export type Reply =
  | { text: string; reasoning?: string; usage?: Usage; delayMs?: number }
  | { toolCalls: ToolCallSpec[]; text?: string; reasoning?: string; usage?: Usage; delayMs?: number }
  | {
      fail: FailKind
      /** Provider message; defaults per kind. */
      message?: string
      /** HTTP status for server-error (default 500). */
      status?: number
      /** stall: give up after this long (server drops the connection; adapter throws STREAM_CLOSED). Default: until aborted. */
      stallMs?: number
      delayMs?: number
    }

export interface RuleContext {
  /** Index of this request among all requests the ScriptedModel saw (0-based). */
  index: number
  /** Index of the step being tried within its script (steps only; -1 for fallback/title). */
  step: number
  /** Model id the request named. */
  model: string
}

/** A fixed reply, or a function of the request. A function returning undefined declines (see Script.steps). */
export type Rule = Reply | ((req: RecordedRequest, ctx: RuleContext) => Reply | undefined)

export interface Script {
  /**
   * Consumed in order, one per (non-side-call) request. A function step that returns undefined is NOT
   * consumed: the request is answered by `fallback` instead and the step waits for a later request.
   */
  steps?: Rule[]
  /** Answers once steps are exhausted (or a step declined). Default: a fixed "no scripted reply left" text. */
  fallback?: Rule
  /** Reply text for DSH's session-title side call (never consumes steps). Default 'Scripted title'. */
  title?: string | ((req: RecordedRequest) => string)
  /** Context window reported by the in-process adapter's resolveModel (default 128000). */
  contextWindow?: number
  /** Answer to the plugin's end-of-turn memory review side call (never consumes steps). Default '{"changes":[]}'. */
  review?: SideAnswer
  /** Answer to the plugin's context-steward decision (a `compaction` side call; never consumes steps). */
  steward?: Rule
  /** Answer to the plugin's handoff-note call (a `compaction` side call; never consumes steps). */
  note?: Rule
}

/** A side call's answer: its text, a full reply (e.g. with usage), or a function of the request. */
export type SideAnswer = string | Reply | ((req: RecordedRequest) => string | Reply)

/** A map of scripts keyed by model id; key '*' answers models without their own script. */
export type ScriptMap = Record<string, Script>

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface RecordedToolCall {
  id: string
  name: string
  /** Raw JSON arguments text as the model produced it. */
  arguments: string
  /** Parsed arguments (undefined when not valid JSON). */
  args: unknown
}

/** One message in a shape common to both request forms. */
export interface RecordedMessage {
  role: Role
  /** Joined text blocks ('' when none). For role 'tool' the result text. */
  text: string
  /** Assistant tool calls. */
  toolCalls?: RecordedToolCall[]
  /** role 'tool': the call this result answers. */
  toolCallId?: string
  /** role 'tool': the tool name, resolved from the assistant message that made the call. */
  toolName?: string
  isError?: boolean
  /** In-process only: the DSH message source kind ('user', 'plugin', 'tool', 'model' …). */
  sourceKind?: string
  /** True for DSH's runtime-context snapshot message ("Current runtime context…"). */
  runtimeContext?: boolean
}

export interface RecordedTool {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface RecordedRequest {
  /** Which form received it. */
  via: 'adapter' | 'server'
  /** 0-based order among all requests this ScriptedModel recorded. */
  index: number
  model: string
  provider?: string
  /** System prompt text ('' when none). */
  system: string
  tools: RecordedTool[]
  toolNames: string[]
  messages: RecordedMessage[]
  /**
   * Side-call purpose: DSH's own (`session-title`, `compaction`; on the wire a title call is detected
   * from its system prompt) or one of the plugin's, recognised by its system prompt (SIDE_CALLS).
   */
  purpose?: SideCallPurpose
  /** Which of the plugin's `compaction` side calls this is (STEWARD_CALLS), told by its system prompt. */
  label?: 'steward' | 'handoff-note'
  sessionId?: string
  maxTokens?: number
  /** What the script answered (filled in by respond()). */
  reply?: Reply
  /** How the reply was chosen. */
  answeredBy?: 'step' | 'fallback' | 'title' | 'side-call' | 'default'
}

// ---------------------------------------------------------------------------------------------
// Normalisation

const RUNTIME_CONTEXT_PREFIX = 'Current runtime context'
export const TITLE_SYSTEM_PREFIX = 'Create a concise title'

/**
 * The plugin's own side calls (direct `ctx.llm.stream` calls, not loop steps), each recognised by the
 * start of its system prompt, answered from its script field without consuming steps and left out of
 * `loopRequests()`. Add a row for a new side call; the prefix must match the caller's prompt text
 * exactly (the memory review's is in src/memory/review.ts).
 */
export const SIDE_CALLS = [
  {
    purpose: 'memory-review',
    systemPrefix: "You maintain a Bot's long-term memory",
    answer: (s: Script | undefined): SideAnswer => s?.review ?? '{"changes":[]}',
  },
] as const satisfies readonly { purpose: string; systemPrefix: string; answer: (s: Script | undefined) => SideAnswer }[]

export type SideCallPurpose = 'session-title' | 'compaction' | (typeof SIDE_CALLS)[number]['purpose']

/** The purpose a system prompt names: DSH's title call or one of SIDE_CALLS (undefined for a loop request). */
export function purposeOfSystem(system: string): SideCallPurpose | undefined {
  if (system.startsWith(TITLE_SYSTEM_PREFIX)) return 'session-title'
  return SIDE_CALLS.find((c) => system.startsWith(c.systemPrefix))?.purpose
}

export function isRuntimeContextText(text: string): boolean {
  return text.startsWith(RUNTIME_CONTEXT_PREFIX)
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

type Loose = Record<string, unknown>

function isObj(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null
}

/** Text of DSH content blocks (text blocks only). */
function blocksText(blocks: unknown): string {
  if (typeof blocks === 'string') return blocks
  if (!Array.isArray(blocks)) return ''
  return blocks
    .filter((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => (b as { text: string }).text)
    .join('')
}

function resolveToolNames(messages: RecordedMessage[]): RecordedMessage[] {
  const names = new Map<string, string>()
  for (const m of messages) {
    for (const c of m.toolCalls ?? []) names.set(c.id, c.name)
    if (m.role === 'tool' && m.toolCallId !== undefined && m.toolName === undefined) {
      const n = names.get(m.toolCallId)
      if (n !== undefined) m.toolName = n
    }
  }
  return messages
}

/**
 * Normalise DSH `Message[]` (in-process `GenerateOptions.messages`). A user/tool-role message carrying
 * 'tool-result' blocks becomes its text (if any) as a user message, then one role:'tool' message per
 * result — the same expansion @deepseek-ai/dsh-llm-deepseek applies on the wire, so both forms match.
 */
export function normaliseDshMessages(messages: readonly unknown[]): RecordedMessage[] {
  const out: RecordedMessage[] = []
  for (const raw of messages) {
    if (!isObj(raw)) continue
    const role = raw.role
    const content = Array.isArray(raw.content) ? (raw.content as unknown[]) : []
    const sourceKind = isObj(raw.source) && typeof raw.source.kind === 'string' ? raw.source.kind : undefined
    const withSource = (m: RecordedMessage): RecordedMessage => (sourceKind === undefined ? m : { ...m, sourceKind })
    if (role === 'assistant') {
      const toolCalls: RecordedToolCall[] = content
        .filter((b) => isObj(b) && b.type === 'tool-call')
        .map((b) => {
          const blk = b as { id: string; name: string; arguments: string }
          return { id: String(blk.id), name: blk.name, arguments: blk.arguments, args: parseArgs(blk.arguments) }
        })
      out.push(withSource({ role: 'assistant', text: blocksText(content), ...(toolCalls.length > 0 ? { toolCalls } : {}) }))
      continue
    }
    if (role === 'system') {
      out.push(withSource({ role: 'system', text: blocksText(content) }))
      continue
    }
    const results = content.filter((b) => isObj(b) && b.type === 'tool-result') as Loose[]
    const text = blocksText(content)
    if (text.length > 0 || results.length === 0) {
      out.push(withSource({ role: 'user', text, ...(isRuntimeContextText(text) ? { runtimeContext: true } : {}) }))
    }
    for (const r of results) {
      out.push(
        withSource({
          role: 'tool',
          text: blocksText(r.content),
          toolCallId: String(r.toolCallId),
          ...(r.isError === true ? { isError: true } : {}),
        }),
      )
    }
  }
  return resolveToolNames(out)
}

/** Normalise OpenAI/DeepSeek chat-completions wire messages. System messages are returned separately. */
export function normaliseWireMessages(messages: readonly unknown[]): { system: string; messages: RecordedMessage[] } {
  const out: RecordedMessage[] = []
  const system: string[] = []
  for (const raw of messages) {
    if (!isObj(raw)) continue
    const text = wireText(raw.content)
    switch (raw.role) {
      case 'system':
      case 'developer':
        system.push(text)
        break
      case 'assistant': {
        const calls = Array.isArray(raw.tool_calls) ? (raw.tool_calls as unknown[]) : []
        const toolCalls: RecordedToolCall[] = calls.filter(isObj).map((c) => {
          const fn = isObj(c.function) ? c.function : {}
          const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {})
          return { id: String(c.id ?? ''), name: String(fn.name ?? ''), arguments: args, args: parseArgs(args) }
        })
        out.push({ role: 'assistant', text, ...(toolCalls.length > 0 ? { toolCalls } : {}) })
        break
      }
      case 'tool':
        out.push({ role: 'tool', text, toolCallId: String(raw.tool_call_id ?? '') })
        break
      default:
        out.push({ role: 'user', text, ...(isRuntimeContextText(text) ? { runtimeContext: true } : {}) })
    }
  }
  return { system: system.join('\n\n'), messages: resolveToolNames(out) }
}

function wireText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('')
}

function normaliseTools(tools: unknown): RecordedTool[] {
  if (!Array.isArray(tools)) return []
  return tools.filter(isObj).map((t) => {
    const fn = isObj(t.function) ? t.function : t
    return {
      name: String(fn.name ?? ''),
      description: String(fn.description ?? ''),
      parameters: isObj(fn.parameters) ? fn.parameters : {},
    }
  })
}

/** Build a RecordedRequest (index 0; the ScriptedModel re-indexes) from in-process GenerateOptions. */
export function requestFromOptions(options: {
  provider?: string
  model: string
  messages: readonly unknown[]
  system?: string
  tools?: readonly unknown[]
  purpose?: string
  sessionId?: unknown
  maxTokens?: number
}): RecordedRequest {
  const tools = normaliseTools(options.tools)
  const system = options.system ?? ''
  const purpose = options.purpose === 'session-title' || options.purpose === 'compaction' ? options.purpose : purposeOfSystem(system)
  return {
    via: 'adapter',
    index: 0,
    model: options.model,
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    system,
    tools,
    toolNames: tools.map((t) => t.name),
    messages: normaliseDshMessages(options.messages),
    ...(purpose !== undefined ? { purpose } : {}),
    ...(options.sessionId !== undefined ? { sessionId: String(options.sessionId) } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  }
}

/** Build a RecordedRequest from a chat-completions JSON body and the request headers (lower-case keys). */
export function requestFromWire(body: unknown, headers: Record<string, string | string[] | undefined> = {}): RecordedRequest {
  const b = isObj(body) ? body : {}
  const { system, messages } = normaliseWireMessages(Array.isArray(b.messages) ? b.messages : [])
  const tools = normaliseTools(b.tools)
  const header = (k: string): string | undefined => {
    const v = headers[k]
    return Array.isArray(v) ? v[0] : v
  }
  const sessionId = header('x-deepseek-harness-session-id')
  const purpose = header('x-deepseek-harness-compact') === '1' ? 'compaction' : purposeOfSystem(system)
  const maxTokens = typeof b.max_tokens === 'number' ? b.max_tokens : undefined
  return {
    via: 'server',
    index: 0,
    model: typeof b.model === 'string' ? b.model : '',
    system,
    tools,
    toolNames: tools.map((t) => t.name),
    messages,
    ...(purpose !== undefined ? { purpose } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  }
}

// ---------------------------------------------------------------------------------------------
// Read helpers (use these instead of messages.at(-1))

/** Messages after the last assistant message (the whole list when there is none). */
export function messagesSinceLastAssistant(req: RecordedRequest): RecordedMessage[] {
  const ms = req.messages
  let i = ms.length - 1
  while (i >= 0 && ms[i]!.role !== 'assistant') i--
  return ms.slice(i + 1)
}

/** Texts of user messages after the last assistant message, oldest first, runtime-context snapshots excluded. */
export function userTextsSinceLastAssistant(req: RecordedRequest, opts: { includeRuntimeContext?: boolean } = {}): string[] {
  return messagesSinceLastAssistant(req)
    .filter((m) => m.role === 'user' && m.text.length > 0 && (opts.includeRuntimeContext === true || m.runtimeContext !== true))
    .map((m) => m.text)
}

/** The newest real user text in the request (runtime-context snapshots skipped), or undefined. */
export function lastUserText(req: RecordedRequest): string | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i]!
    if (m.role === 'user' && m.text.length > 0 && m.runtimeContext !== true) return m.text
  }
  return undefined
}

/** The tool results answering the last assistant message's tool calls ([] when the last step was not a tool step). */
export function lastToolResults(req: RecordedRequest): { callId: string; name?: string; text: string; isError?: boolean }[] {
  return messagesSinceLastAssistant(req)
    .filter((m) => m.role === 'tool')
    .map((m) => ({
      callId: m.toolCallId ?? '',
      ...(m.toolName !== undefined ? { name: m.toolName } : {}),
      text: m.text,
      ...(m.isError === true ? { isError: true } : {}),
    }))
}

/** True when the request is DSH's session-title side call. */
export function isTitleRequest(req: RecordedRequest): boolean {
  return req.purpose === 'session-title'
}

/** A side call (DSH's title or compaction, or one of the plugin's SIDE_CALLS) rather than a loop request. */
export function isSideCall(req: RecordedRequest): boolean {
  return req.purpose !== undefined
}

export function offersTool(req: RecordedRequest, name: string): boolean {
  return req.toolNames.includes(name)
}

// ---------------------------------------------------------------------------------------------
// Usage

/** Rough token estimate (≈4 chars/token) used when a reply gives no usage. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4))
}

/** Fill missing usage fields deterministically from the request and reply sizes. */
export function resolveUsage(req: RecordedRequest, reply: Reply): Required<Usage> {
  const u: Usage = 'fail' in reply ? {} : (reply.usage ?? {})
  const prompt = req.system.length + req.messages.reduce((n, m) => n + m.text.length, 0)
  const outText = 'fail' in reply ? '' : (reply.text ?? '') + ('toolCalls' in reply ? reply.toolCalls.map((c) => c.name + argsText(c.args)).join('') : '')
  return {
    input: u.input ?? estimateTokens('x'.repeat(prompt)),
    output: u.output ?? estimateTokens(outText),
    cached: u.cached ?? 0,
  }
}

/** Raw arguments JSON text for a tool call spec. */
export function argsText(args: unknown): string {
  if (typeof args === 'string') return args
  return JSON.stringify(args ?? {})
}

// ---------------------------------------------------------------------------------------------
// The core

const SCRIPT_KEYS = new Set(['steps', 'fallback', 'title', 'contextWindow', 'steward', 'note', 'review'])

/** The plugin's handoff-note headings, in order (src/context/note.ts NOTE_HEADINGS). */
export const NOTE_HEADINGS = ['Goals', 'Constraints and preferences', 'Progress', 'Decisions', 'Facts to keep', 'Open threads', 'Next step', 'Where to look']

/**
 * The plugin's context-steward side calls (`purpose: 'compaction'`, like DSH's own summariser),
 * told apart by the start of their system prompt (src/context/steward.ts, note.ts), answered from
 * the script's `steward` / `note` without consuming steps. Defaults: a handoff decision, and a note
 * with every heading that quotes the first user line it was given.
 */
export const STEWARD_CALLS = [
  {
    label: 'steward',
    systemPrefix: "You are the context steward of a Bot's conversation.",
    answer: (s: Script | undefined) => s?.steward ?? { text: '{"action":"handoff","reason":"scripted"}', usage: { output: 12 } },
  },
  {
    label: 'handoff-note',
    systemPrefix: 'You write the handoff note of a Bot whose conversation continues in a fresh part.',
    answer: (s: Script | undefined) => s?.note ?? defaultNote,
  },
] as const

const defaultNote = (req: RecordedRequest): Reply => {
  const first =
    req.messages
      .find((m) => m.role === 'user')
      ?.text.split('\n')
      .find((l) => l.startsWith('User: ')) ?? ''
  return { text: NOTE_HEADINGS.map((h) => `## ${h}\n${h === 'Facts to keep' ? first.slice(0, 300) || '-' : '-'}`).join('\n') }
}
export const DEFAULT_FALLBACK_TEXT = 'Scripted model: no scripted reply left.'
export const DEFAULT_TITLE = 'Scripted title'
export const DEFAULT_CONTEXT_WINDOW = 128_000

function isScript(v: Script | ScriptMap): v is Script {
  const keys = Object.keys(v)
  return keys.length === 0 || keys.some((k) => SCRIPT_KEYS.has(k))
}

interface ScriptState {
  script: Script
  cursor: number
}

/**
 * Holds one script (every model) or one script per model id ('*' = any other model), consumes steps
 * in order per script, answers side calls (title, compaction, SIDE_CALLS) without consuming steps,
 * and records every request.
 */
export class ScriptedModel {
  readonly requests: RecordedRequest[] = []
  private readonly scripts = new Map<string, ScriptState>()

  constructor(scripts: Script | ScriptMap = {}) {
    if (isScript(scripts)) this.scripts.set('*', { script: scripts, cursor: 0 })
    else for (const [model, script] of Object.entries(scripts)) this.scripts.set(model, { script, cursor: 0 })
  }

  /** Add or replace the script for a model id ('*' for the default). Resets its cursor. */
  setScript(model: string, script: Script): this {
    this.scripts.set(model, { script, cursor: 0 })
    return this
  }

  /** Append steps to a model's script (creating it when missing). */
  push(model: string, ...steps: Rule[]): this {
    const st = this.scripts.get(model) ?? { script: {}, cursor: 0 }
    st.script = { ...st.script, steps: [...(st.script.steps ?? []), ...steps] }
    this.scripts.set(model, st)
    return this
  }

  /** The script answering `model` (its own, else '*'). */
  scriptFor(model: string): Script | undefined {
    return (this.scripts.get(model) ?? this.scripts.get('*'))?.script
  }

  /** Steps not yet consumed, per script key. */
  remaining(): Record<string, number> {
    const r: Record<string, number> = {}
    for (const [k, st] of this.scripts) r[k] = Math.max(0, (st.script.steps?.length ?? 0) - st.cursor)
    return r
  }

  /** Loop requests only (side calls excluded), optionally for one model. */
  loopRequests(model?: string): RecordedRequest[] {
    return this.requests.filter((r) => !isSideCall(r) && (model === undefined || r.model === model))
  }

  contextWindow(model: string): number {
    return this.scriptFor(model)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW
  }

  /** Record a request and choose its reply. The request object gets `index`, `reply` and `answeredBy`. */
  respond(req: RecordedRequest): Reply {
    req.index = this.requests.length
    this.requests.push(req)
    const st = this.scripts.get(req.model) ?? this.scripts.get('*')
    const ctx = (step: number): RuleContext => ({ index: req.index, step, model: req.model })
    let reply: Reply | undefined
    let by: RecordedRequest['answeredBy'] = 'default'
    if (isTitleRequest(req)) {
      const t = st?.script.title ?? DEFAULT_TITLE
      reply = { text: typeof t === 'function' ? t(req) : t, usage: { input: 20, output: 3 } }
      by = 'title'
    } else if (req.purpose === 'compaction') {
      const call = STEWARD_CALLS.find((c) => req.system.startsWith(c.systemPrefix))
      if (call) req.label = call.label
      reply = call ? evaluate(call.answer(st?.script), req, ctx(-1)) : { text: 'Summary of the conversation so far (scripted).' }
    } else if (req.purpose !== undefined) {
      const side = SIDE_CALLS.find((c) => c.purpose === req.purpose)!
      const a = side.answer(st?.script)
      const r = typeof a === 'function' ? a(req) : a
      reply = typeof r === 'string' ? { text: r } : r
      by = 'side-call'
    } else if (st !== undefined) {
      const steps = st.script.steps ?? []
      if (st.cursor < steps.length) {
        reply = evaluate(steps[st.cursor]!, req, ctx(st.cursor))
        if (reply !== undefined) {
          st.cursor++
          by = 'step'
        }
      }
      if (reply === undefined && st.script.fallback !== undefined) {
        reply = evaluate(st.script.fallback, req, ctx(-1))
        if (reply !== undefined) by = 'fallback'
      }
    }
    reply ??= { text: DEFAULT_FALLBACK_TEXT }
    req.reply = reply
    req.answeredBy = by
    return reply
  }
}

function evaluate(rule: Rule, req: RecordedRequest, ctx: RuleContext): Reply | undefined {
  return typeof rule === 'function' ? rule(req, ctx) : rule
}

/** Resolve tool-call ids: scripted id, else a stable `call_<request>_<n>`. */
export function toolCallIds(reply: Reply, req: RecordedRequest): string[] {
  if (!('toolCalls' in reply)) return []
  return reply.toolCalls.map((c, i) => c.id ?? `call_${req.index}_${i}`)
}

/** Provider-shaped failure facts shared by both forms. */
export function failureFacts(reply: Extract<Reply, { fail: FailKind }>, req: RecordedRequest): { status: number; code: string; type: string; message: string } {
  switch (reply.fail) {
    case 'context-overflow':
      // Matches dsh-llm's isContextWindowExceededError through both the message ("maximum context length")
      // and the OpenAI code ("context_length_exceeded"); with HTTP 400 the deepseek adapter maps it to
      // CONTEXT_WINDOW_EXCEEDED.
      return {
        status: 400,
        code: 'context_length_exceeded',
        type: 'invalid_request_error',
        message:
          reply.message ??
          `This model's maximum context length is ${DEFAULT_CONTEXT_WINDOW} tokens. However, you requested more tokens (scripted overflow on request ${req.index}). Please reduce the length of the messages.`,
      }
    case 'rate-limit':
      return { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error', message: reply.message ?? 'Rate limit reached (scripted).' }
    case 'server-error':
    case 'stall':
      return {
        status: reply.status ?? 500,
        code: 'server_error',
        type: 'server_error',
        message: reply.message ?? 'The server had an error while processing your request (scripted).',
      }
  }
}

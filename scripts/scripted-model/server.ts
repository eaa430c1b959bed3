// Scripted model — loopback form: an OpenAI-compatible chat-completions server (node:http, SSE) for
// CLI/Web tests and the offline demo. Point DSH's deepseek provider at it with
// DEEPSEEK_BASE_URL=http://127.0.0.1:<port> and DEEPSEEK_API_KEY=<anything>.
// Owns: POST /chat/completions and /v1/chat/completions (streaming SSE, or one JSON body when
// stream is false), GET /models and /v1/models, the wire encoding of replies in the shape
// @deepseek-ai/dsh-llm-deepseek parses (content / reasoning_content / tool_calls deltas,
// finish_reason, a trailing usage-only chunk, `data: [DONE]`), HTTP failures DSH classifies
// (400 context_length_exceeded → CONTEXT_WINDOW_EXCEEDED, 5xx → SERVER, 429 → RATE_LIMIT), and a CLI.
// Deliberately does not: choose replies (format.ts), persist anything, or listen beyond loopback.

import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { appendFileSync, readFileSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ScriptedModel, argsText, failureFacts, requestFromWire, resolveUsage, toolCallIds } from './format.ts'
import type { RecordedRequest, Reply, Script, ScriptMap, Usage } from './format.ts'

export interface ScriptedServerOptions {
  /** 0 (default) picks a free port. */
  port?: number
  /** Loopback only; default '127.0.0.1'. */
  host?: string
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. Default: any key accepted. */
  apiKey?: string
  /** Split streamed text into deltas of at most this many characters (default 24). */
  chunkChars?: number
  /** Called after each chat request is recorded and answered. */
  onRequest?: (req: RecordedRequest) => void
  /** Called with each chat request's parsed wire body beside its record (what a bench counts as sent). */
  onWire?: (body: Record<string, unknown>, req: RecordedRequest) => void
}

export interface ScriptedServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:38211 (use as DEEPSEEK_BASE_URL). */
  url: string
  port: number
  model: ScriptedModel
  requests: RecordedRequest[]
  close(): Promise<void>
}

/** OpenAI/DeepSeek usage object for DSH-style disjoint counts (prompt_tokens INCLUDES cached tokens). */
export function wireUsage(u: Required<Usage>): Record<string, unknown> {
  return {
    prompt_tokens: u.input + u.cached,
    completion_tokens: u.output,
    total_tokens: u.input + u.cached + u.output,
    prompt_tokens_details: { cached_tokens: u.cached },
    prompt_cache_hit_tokens: u.cached,
    prompt_cache_miss_tokens: u.input,
  }
}

function pieces(text: string, size: number): string[] {
  if (text.length === 0) return []
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** The SSE `data:` payloads (objects, then the '[DONE]' sentinel) for a successful reply. */
export function sseEvents(
  reply: Exclude<Reply, { fail: unknown }>,
  req: RecordedRequest,
  opts: { id?: string; created?: number; chunkChars?: number } = {},
): (Record<string, unknown> | '[DONE]')[] {
  const base = {
    id: opts.id ?? `chatcmpl-scripted-${req.index}`,
    object: 'chat.completion.chunk',
    created: opts.created ?? Math.floor(Date.now() / 1000),
    model: req.model,
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })
  const size = Math.max(1, opts.chunkChars ?? 24)
  const events: (Record<string, unknown> | '[DONE]')[] = [chunk({ role: 'assistant', content: '' })]
  for (const p of pieces(reply.reasoning ?? '', size)) events.push(chunk({ reasoning_content: p }))
  for (const p of pieces(reply.text ?? '', size)) events.push(chunk({ content: p }))
  const calls = 'toolCalls' in reply ? reply.toolCalls : []
  const ids = toolCallIds(reply, req)
  calls.forEach((c, i) => {
    events.push(chunk({ tool_calls: [{ index: i, id: ids[i], type: 'function', function: { name: c.name, arguments: '' } }] }))
    events.push(chunk({ tool_calls: [{ index: i, function: { arguments: argsText(c.args) } }] }))
  })
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'))
  events.push({ ...base, choices: [], usage: wireUsage(resolveUsage(req, reply)) })
  events.push('[DONE]')
  return events
}

/** A non-streaming chat.completion body for a successful reply. */
export function completionBody(reply: Exclude<Reply, { fail: unknown }>, req: RecordedRequest): Record<string, unknown> {
  const calls = 'toolCalls' in reply ? reply.toolCalls : []
  const ids = toolCallIds(reply, req)
  return {
    id: `chatcmpl-scripted-${req.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: reply.text ?? '',
          ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}),
          ...(calls.length > 0
            ? { tool_calls: calls.map((c, i) => ({ id: ids[i], type: 'function', function: { name: c.name, arguments: argsText(c.args) } })) }
            : {}),
        },
      },
    ],
    usage: wireUsage(resolveUsage(req, reply)),
  }
}

function wait(ms: number, res: http.ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed || res.writableEnded) {
      resolve(false)
      return
    }
    const t = setTimeout(() => {
      res.off('close', onClose)
      resolve(true)
    }, ms)
    const onClose = (): void => {
      clearTimeout(t)
      resolve(false)
    }
    res.once('close', onClose)
  })
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** Start the server on loopback. The same ScriptedModel may also back a ScriptedAdapter. */
export async function startScriptedServer(model: ScriptedModel | Script | ScriptMap = {}, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const sm = model instanceof ScriptedModel ? model : new ScriptedModel(model)
  const host = options.host ?? '127.0.0.1'
  const server = http.createServer((req, res) => {
    handle(sm, options, req, res).catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error' } })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${host}:${port}`,
    port,
    model: sm,
    requests: sm.requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = []
  for await (const c of req) parts.push(c as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

async function handle(sm: ScriptedModel, options: ScriptedServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x')
  const route = url.pathname.replace(/\/+$/, '').replace(/^\/v1(?=\/)/, '')
  if (req.method === 'GET' && route === '/models') {
    const ids = Object.keys(sm.remaining()).filter((k) => k !== '*')
    sendJson(res, 200, { object: 'list', data: (ids.length > 0 ? ids : ['scripted']).map((id) => ({ id, object: 'model', owned_by: 'scripted' })) })
    return
  }
  if (req.method !== 'POST' || route !== '/chat/completions') {
    sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } })
    return
  }
  if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
    await readBody(req)
    sendJson(res, 401, { error: { message: 'Authentication Fails (scripted: wrong api key)', type: 'authentication_error', code: 'invalid_api_key' } })
    return
  }
  let body: Record<string, unknown>
  try {
    body = JSON.parse(await readBody(req)) as Record<string, unknown>
  } catch {
    sendJson(res, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } })
    return
  }
  const rec = requestFromWire(body, req.headers)
  const reply = sm.respond(rec)
  options.onRequest?.(rec)
  options.onWire?.(body, rec)
  if (reply.delayMs !== undefined && reply.delayMs > 0 && !(await wait(reply.delayMs, res))) return
  if ('fail' in reply && reply.fail !== 'stall') {
    const f = failureFacts(reply, rec)
    sendJson(res, f.status, { error: { message: f.message, type: f.type, code: f.code, param: null } })
    return
  }
  if (body.stream !== true) {
    if ('fail' in reply) {
      await wait(reply.stallMs ?? 2 ** 31 - 1, res)
      res.destroy()
      return
    }
    sendJson(res, 200, completionBody(reply, rec))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' })
  const write = (data: Record<string, unknown> | '[DONE]'): void => {
    res.write(`data: ${data === '[DONE]' ? data : JSON.stringify(data)}\n\n`)
  }
  if ('fail' in reply) {
    // stall: open the stream with a content-less role delta, then go silent. After stallMs the
    // stream ends WITHOUT [DONE], which the deepseek adapter reports as STREAM_CLOSED.
    write({
      id: `chatcmpl-scripted-${rec.index}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: rec.model,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    })
    if (await wait(reply.stallMs ?? 2 ** 31 - 1, res)) res.end()
    return
  }
  for (const ev of sseEvents(reply, rec, { chunkChars: options.chunkChars ?? 24 })) write(ev)
  res.end()
}

// ---------------------------------------------------------------------------------------------
// CLI: node scripts/scripted-model/server.ts [--port N] [--host 127.0.0.1] [--script file.json|module.ts] [--log file.jsonl] [--api-key K]

/** Load a script from JSON, or from a module exporting `default` / `script` / `scripts` (Script, ScriptMap or ScriptedModel). */
export async function loadScript(file: string): Promise<ScriptedModel | Script | ScriptMap> {
  const abs = path.resolve(file)
  if (abs.endsWith('.json')) return JSON.parse(readFileSync(abs, 'utf8')) as Script | ScriptMap
  const mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>
  const found = mod.default ?? mod.script ?? mod.scripts
  if (found === undefined || typeof found !== 'object' || found === null)
    throw new Error(`${file}: export a Script, a script map or a ScriptedModel as default (or as "script")`)
  return found as ScriptedModel | Script | ScriptMap
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name)
  if (i >= 0) return args[i + 1]
  const eq = args.find((a) => a.startsWith(`${name}=`))
  return eq?.slice(name.length + 1)
}

export async function main(args: string[]): Promise<ScriptedServer> {
  const scriptFile = argValue(args, '--script')
  const log = argValue(args, '--log')
  const apiKey = argValue(args, '--api-key')
  const script = scriptFile !== undefined ? await loadScript(scriptFile) : { fallback: { text: 'Hello from the scripted model.' } }
  const server = await startScriptedServer(script, {
    port: Number(argValue(args, '--port') ?? 0),
    host: argValue(args, '--host') ?? '127.0.0.1',
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(log !== undefined ? { onRequest: (r: RecordedRequest) => appendFileSync(log, JSON.stringify({ time: new Date().toISOString(), ...r }) + '\n') } : {}),
  })
  process.stdout.write(`scripted model on ${server.url}\n`)
  const stop = (): void => {
    void server.close().then(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  return server
}

function isMain(): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isMain()) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`scripted model: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  })
}

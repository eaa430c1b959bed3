// The loopback scripted server: raw OpenAI-format SSE over fetch, HTTP failures, and — the real
// proof — DSH's own DeepSeekAdapter (@deepseek-ai/dsh-llm-deepseek, reached through the installed
// @deepseek-ai/dsh dependency tree) driving a real in-process agent turn against it.
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { BlockAssembler, createUserMessage } from '@deepseek-ai/dsh-llm'
import type { LlmAdapter } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { mountDshCore } from '../../support/dsh-host.ts'
import { lastToolResults, startScriptedServer } from '../../../scripts/scripted-model/index.ts'
import type { ScriptedServer } from '../../../scripts/scripted-model/index.ts'
import demoScript from '../../../scripts/demo-script.ts'

type Ev = { type: string; data: any }
const NODE = process.execPath

let server: ScriptedServer | undefined
let ctx: Context | undefined
afterEach(async () => {
  await ctx?.fiber.dispose()
  await server?.close()
  ctx = undefined
  server = undefined
})

/** Parse an SSE body into its data payloads. */
function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .map((b) => b.trim())
    .filter(Boolean)
    .map((b) => b.replace(/^data: /, ''))
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer anything', ...headers },
    body: JSON.stringify(body),
  })
}

/** DSH's real DeepSeek adapter class, resolved from the installed @deepseek-ai/dsh closure. */
async function realDeepSeekAdapter(baseURL: string): Promise<LlmAdapter> {
  const fromDsh = createRequire(createRequire(import.meta.url).resolve('@deepseek-ai/dsh/package.json'))
  const fromBase = createRequire(fromDsh.resolve('@deepseek-ai/dsh-base/package.json'))
  const mod = await import(pathToFileURL(fromBase.resolve('@deepseek-ai/dsh-llm-deepseek')).href)
  const options = mod.resolveAdapterOptions({ baseURL, streamIdleTimeoutMs: 5000, retryPolicy: { mode: 'normal', maxRetries: 0 } }, undefined)
  return new mod.DeepSeekAdapter({
    options: () => options,
    resolveApiKey: async () => 'scripted-key',
    resolveUserId: () => 'scripted-user',
    resolveAttachments: () => undefined,
  })
}

async function mountWithRealProvider(url: string) {
  ctx = await mountDshCore(new Context(), 'You are a wire test agent.')
  ctx.llm.registerAdapter(['deepseek-official'], await realDeepSeekAdapter(url))
  ctx.tools.register(
    defineTool({
      name: 'list_bots',
      description: 'List the bots.',
      parameters: { filter: { type: 'string' } },
      output: { schema: { type: 'string' }, render: (_a: unknown, v: string) => [{ type: 'text', text: v }] },
      execute: async () => 'Ada, Bo',
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a: unknown, v: string) => [{ type: 'text', text: v }] },
      execute: async (args: { text: string }) => `echo:${args.text}`,
    }),
  )
  return ctx
}

async function runTurn(c: Context, text: string, id = 'wire-1') {
  const { agent } = await c.agents.create({ sessionId: SessionId(id), agentOptions: { provider: 'deepseek-official', model: 'deepseek-v4-flash' } })
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await agent.whenIdle().catch(() => undefined)
  return agent.session.events as unknown as Ev[]
}

describe('scripted server: wire format', () => {
  it('streams OpenAI-format SSE with text, tool_calls deltas, finish_reason and a trailing usage chunk', async () => {
    server = await startScriptedServer({
      steps: [
        { text: 'first answer that is longer than one delta', usage: { input: 10, output: 5, cached: 30 } },
        {
          toolCalls: [
            { name: 'a', args: { x: 1 } },
            { name: 'b', args: { y: 2 }, id: 'call_fixed' },
          ],
        },
      ],
    })
    const r1 = await post(
      server.url,
      {
        model: 'm',
        stream: true,
        messages: [
          { role: 'system', content: 'SYS' },
          { role: 'user', content: 'hi' },
        ],
      },
      { 'x-deepseek-harness-session-id': 'sess-9' },
    )
    expect(r1.status).toBe(200)
    expect(r1.headers.get('content-type')).toContain('text/event-stream')
    const d1 = sseData(await r1.text())
    expect(d1.at(-1)).toBe('[DONE]')
    const j1 = d1.slice(0, -1).map((s) => JSON.parse(s))
    expect(j1.flatMap((c) => c.choices.map((ch: any) => ch.delta?.content ?? '')).join('')).toBe('first answer that is longer than one delta')
    expect(j1.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(1)
    expect(j1.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop')
    expect(j1.at(-1).usage).toEqual({
      prompt_tokens: 40,
      completion_tokens: 5,
      total_tokens: 45,
      prompt_tokens_details: { cached_tokens: 30 },
      prompt_cache_hit_tokens: 30,
      prompt_cache_miss_tokens: 10,
    })
    const rec = server.requests[0]!
    expect(rec).toMatchObject({ via: 'server', model: 'm', system: 'SYS', sessionId: 'sess-9' })

    // /v1 prefix works too
    const r2 = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    })
    const j2 = sseData(await r2.text())
      .slice(0, -1)
      .map((s) => JSON.parse(s))
    const toolDeltas = j2.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
    expect(toolDeltas.filter((t: any) => t.id).map((t: any) => [t.index, t.function.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ])
    expect(toolDeltas.find((t: any) => t.id === 'call_fixed')).toBeTruthy()
    const argsOf = (i: number) =>
      toolDeltas
        .filter((t: any) => t.index === i)
        .map((t: any) => t.function.arguments)
        .join('')
    expect(JSON.parse(argsOf(0))).toEqual({ x: 1 })
    expect(JSON.parse(argsOf(1))).toEqual({ y: 2 })
    expect(j2.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls')
  })

  it('answers context overflow with HTTP 400 context_length_exceeded, and serves /models', async () => {
    server = await startScriptedServer({ 'deepseek-v4-flash': { steps: [{ fail: 'context-overflow' }, { fail: 'server-error', status: 502 }] } })
    const r = await post(server.url, { model: 'deepseek-v4-flash', stream: true, messages: [{ role: 'user', content: 'x' }] })
    expect(r.status).toBe(400)
    const body = (await r.json()) as { error: { code: string; type: string; message: string } }
    expect(body.error.code).toBe('context_length_exceeded')
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toMatch(/maximum context length/)
    const r5 = await post(server.url, { model: 'deepseek-v4-flash', stream: true, messages: [] })
    expect(r5.status).toBe(502)
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] }
    expect(models.data.map((m) => m.id)).toEqual(['deepseek-v4-flash'])
    expect((await fetch(`${server.url}/nope`)).status).toBe(404)
  })

  it('answers a title call (by its system prompt) without consuming a step', async () => {
    server = await startScriptedServer({ steps: [{ text: 'step one' }], title: 'Wire title' })
    const t = await post(server.url, {
      model: 'm',
      stream: false,
      messages: [
        { role: 'system', content: 'Create a concise title for the conversation.' },
        { role: 'user', content: 'x' },
      ],
    })
    const tj = (await t.json()) as { choices: { message: { content: string } }[] }
    expect(tj.choices[0]!.message.content).toBe('Wire title')
    expect(server.requests[0]!.purpose).toBe('session-title')
    expect(server.model.remaining()).toEqual({ '*': 1 })
  })
})

describe("scripted server behind DSH's real DeepSeekAdapter", () => {
  it('runs a tool turn: the provider parses tool_calls, results come back as role:tool, cached usage lands in DSH', async () => {
    server = await startScriptedServer({
      steps: [
        {
          toolCalls: [
            { name: 'list_bots', args: {} },
            { name: 'echo', args: { text: 'yo' } },
          ],
          usage: { input: 50, output: 9, cached: 400 },
        },
        (req) => {
          const r = lastToolResults(req)
          return r.length === 2 ? { text: `saw ${r.map((x) => `${x.name}:${x.text}`).join(' + ')}`, usage: { input: 70, output: 4, cached: 450 } } : undefined
        },
      ],
      fallback: { text: 'no tool results seen' },
    })
    const c = await mountWithRealProvider(server.url)
    const events = await runTurn(c, 'who is on the team?')
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.data.name ?? e.data.call?.name)).toHaveLength(2)
    const msgs = events.filter((e) => e.type === 'assistant/message')
    expect(msgs.at(-1)!.data.message.content).toEqual([{ type: 'text', text: 'saw list_bots:Ada, Bo + echo:echo:yo' }])
    expect(msgs[0]!.data.usage).toEqual({ inputTokens: 50, outputTokens: 9, cacheReadTokens: 400 })
    expect(msgs[1]!.data.usage).toEqual({ inputTokens: 70, outputTokens: 4, cacheReadTokens: 450 })
    expect(events.filter((e) => e.type === 'turn/end').at(-1)!.data.reason.kind).toBe('completed')
    const second = server.model.loopRequests()[1]!
    expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.toolName)).toEqual(['list_bots', 'echo'])
    expect(second.sessionId).toBe('wire-1')
    expect(second.toolNames).toEqual(expect.arrayContaining(['list_bots', 'echo']))
  })

  it('turns a scripted context overflow into CONTEXT_WINDOW_EXCEEDED in the session log', async () => {
    server = await startScriptedServer({ steps: [{ fail: 'context-overflow' }] })
    const c = await mountWithRealProvider(server.url)
    const events = await runTurn(c, 'overflow please', 'wire-2')
    const end = events.filter((e) => e.type === 'turn/end').at(-1)!.data.reason
    expect(end.kind).toBe('error')
    expect(end.error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400 })
  })

  it('a stall ends without [DONE] after stallMs and the provider reports STREAM_CLOSED', async () => {
    server = await startScriptedServer({ steps: [{ fail: 'stall', stallMs: 50 }] })
    const c = await mountWithRealProvider(server.url)
    const asm = new BlockAssembler()
    for await (const ch of c.llm.stream({
      provider: 'deepseek-official',
      model: 'deepseek-v4-flash',
      messages: [createUserMessage({ content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } })],
    }))
      asm.push(ch)
    expect(asm.finish).toMatchObject({ kind: 'error', failure: { code: 'STREAM_CLOSED' } })
  })

  it('serves the offline demo script: a team question calls list_bots and the reply summarises it', async () => {
    server = await startScriptedServer(demoScript)
    const c = await mountWithRealProvider(server.url)
    const events = await runTurn(c, 'Which bots are on my team?', 'wire-demo')
    expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(1)
    const final = events
      .filter((e) => e.type === 'assistant/message')
      .at(-1)!
      .data.message.content.find((b: any) => b.type === 'text').text
    expect(final).toContain('Ada, Bo')
    expect(final).toContain('DEEPSEEK_API_KEY')
    expect(events.filter((e) => e.type === 'turn/end').at(-1)!.data.reason.kind).toBe('completed')
  })
})

describe('scripted server CLI', () => {
  it('runs as `node server.ts --port 0 --script file.json` and prints its URL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scripted-cli-'))
    const script = path.join(dir, 's.json')
    writeFileSync(script, JSON.stringify({ steps: [{ text: 'from json' }] }))
    const child = spawn(NODE, [path.resolve('scripts/scripted-model/server.ts'), '--port', '0', '--script', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString()
          const m = /scripted model on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (m) resolve(m[1]!)
        })
        child.once('exit', (code) => reject(new Error(`exited ${code}`)))
        setTimeout(() => reject(new Error('no URL line')), 5000)
      })
      const r = await post(url, { model: 'x', stream: false, messages: [{ role: 'user', content: 'hi' }] })
      const j = (await r.json()) as { choices: { message: { content: string } }[] }
      expect(j.choices[0]!.message.content).toBe('from json')
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  })
})

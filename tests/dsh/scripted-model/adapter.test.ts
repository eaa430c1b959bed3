// The scripted LlmAdapter inside a real DSH in-process composition (LlmRuntime, SessionStore,
// SystemPrompt, ToolRuntime, AgentRegistry, AgentLoop): text, multi-tool steps, usage with cached
// tokens, context overflow, title side calls and per-model scripts, asserted on the session log.
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { BlockAssembler, createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { mountDshCore } from '../../support/dsh-host.ts'
import { ScriptedAdapter, ScriptedModel, lastToolResults, userTextsSinceLastAssistant } from '../../../scripts/scripted-model/index.ts'
import type { Script, ScriptMap } from '../../../scripts/scripted-model/index.ts'

type Ev = { type: string; data: any }

let ctx: Context | undefined

async function mount(script: Script | ScriptMap, opts: { contextWindow?: number } = {}) {
  ctx = await mountDshCore(new Context(), 'You are a scripted test agent.')
  const adapter = new ScriptedAdapter(new ScriptedModel(script), opts)
  ctx.llm.registerAdapter(['mock'], adapter)
  const calls: { name: string; args: unknown }[] = []
  for (const name of ['alpha', 'beta']) {
    ctx.tools.register(
      defineTool({
        name,
        description: `The ${name} test tool.`,
        parameters: { text: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_a: unknown, v: string) => [{ type: 'text', text: v }] },
        execute: async (args: { text: string }) => {
          calls.push({ name, args })
          return `${name} got ${args.text}`
        },
      }),
    )
  }
  return { ctx, adapter, calls }
}

async function turn(c: Context, text: string, model = 'mock', id = 't1') {
  const { agent } = await c.agents.create({ sessionId: SessionId(id), agentOptions: { provider: 'mock', model } })
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await agent.whenIdle().catch(() => undefined)
  return { agent, events: agent.session.events as unknown as Ev[] }
}

const ofType = (events: Ev[], t: string) => events.filter((e) => e.type === t)

afterEach(async () => {
  await ctx?.fiber.dispose()
  ctx = undefined
})

describe('ScriptedAdapter in a real DSH composition', () => {
  it('streams a text reply that DSH commits as the assistant message', async () => {
    const { ctx: c, adapter } = await mount({ steps: [{ text: 'Hello from the script' }] })
    const { events } = await turn(c, 'say hi')
    const msgs = ofType(events, 'assistant/message')
    expect(msgs).toHaveLength(1)
    expect(msgs[0]!.data.message.content).toEqual([{ type: 'text', text: 'Hello from the script' }])
    expect(ofType(events, 'turn/end').at(-1)!.data.reason.kind).toBe('completed')
    const req = adapter.model.loopRequests()[0]!
    expect(req.system).toContain('You are a scripted test agent.')
    expect(req.toolNames).toEqual(expect.arrayContaining(['alpha', 'beta']))
    expect(req.tools.find((t) => t.name === 'alpha')!.parameters).toMatchObject({ properties: { text: { type: 'string' } } })
    expect(req.sessionId).toBe('t1')
    expect(userTextsSinceLastAssistant(req)).toContain('say hi')
  })

  it('runs a step with several tool calls, then sees every result (role:user tool-result blocks normalised)', async () => {
    const {
      ctx: c,
      adapter,
      calls,
    } = await mount({
      steps: [
        {
          toolCalls: [
            { name: 'alpha', args: { text: 'one' } },
            { name: 'beta', args: { text: 'two' } },
          ],
        },
        (req) => {
          const results = lastToolResults(req)
          if (results.length !== 2) return undefined
          return { text: results.map((r) => `${r.name}=${r.text}`).join('; ') }
        },
      ],
      fallback: { text: 'tool results missing' },
    })
    const { events } = await turn(c, 'use both tools')
    expect(calls).toEqual([
      { name: 'alpha', args: { text: 'one' } },
      { name: 'beta', args: { text: 'two' } },
    ])
    expect(ofType(events, 'tool/call')).toHaveLength(2)
    expect(ofType(events, 'tool/result')).toHaveLength(2)
    const final = ofType(events, 'assistant/message').at(-1)!.data.message.content[0].text
    expect(final).toBe('alpha=alpha got one; beta=beta got two')
    const second = adapter.model.loopRequests()[1]!
    expect(second.answeredBy).toBe('step')
    // the results follow the assistant tool-call message in the normalised view
    const roles = second.messages.map((m) => m.role)
    expect(roles.lastIndexOf('assistant')).toBeLessThan(roles.lastIndexOf('tool'))
  })

  it('reports usage so cached tokens reach assistant/message usage as cacheReadTokens', async () => {
    const { ctx: c } = await mount({ steps: [{ text: 'counted', usage: { input: 120, output: 7, cached: 900 } }] })
    const { events } = await turn(c, 'count me')
    const msg = ofType(events, 'assistant/message')[0]!
    expect(msg.data.usage).toEqual({ inputTokens: 120, outputTokens: 7, cacheReadTokens: 900 })
    const usageChunks = ofType(events, 'assistant/chunk').filter((e) => e.data.chunk.type === 'usage')
    expect(usageChunks).toHaveLength(1)
  })

  it('fails with a context overflow that DSH records as CONTEXT_WINDOW_EXCEEDED', async () => {
    const { ctx: c } = await mount({ steps: [{ fail: 'context-overflow' }] })
    let seen: any
    c.on('agent/request-error', (payload, next) => {
      seen = payload.failure
      return next()
    })
    const { events } = await turn(c, 'too much')
    const end = ofType(events, 'turn/end').at(-1)!.data.reason
    expect(end.kind).toBe('error')
    expect(end.error.code).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(end.error.status).toBe(400)
    expect(seen?.code).toBe('CONTEXT_WINDOW_EXCEEDED')
    const finish = ofType(events, 'assistant/chunk')
      .map((e) => e.data.chunk)
      .find((ch) => ch.type === 'finish')
    expect(finish.reason).toMatchObject({ kind: 'error', failure: { code: 'CONTEXT_WINDOW_EXCEEDED' } })
    expect(ofType(events, 'assistant/message')).toHaveLength(0)
  })

  it('maps a server error to SERVER/500 and a stall to an aborted finish when the caller gives up', async () => {
    const { ctx: c } = await mount({ steps: [{ fail: 'server-error', status: 503 }, { fail: 'stall' }] })
    const { events } = await turn(c, 'boom')
    expect(ofType(events, 'turn/end').at(-1)!.data.reason.error).toMatchObject({ code: 'SERVER', status: 503 })
    const ac = new AbortController()
    const asm = new BlockAssembler()
    // The stall lasts until the caller gives up: the stream ends only after the abort was called.
    let gaveUp = false
    setTimeout(() => {
      gaveUp = true
      ac.abort()
    }, 30)
    for await (const ch of c.llm.stream({ provider: 'mock', model: 'mock', messages: [], signal: ac.signal })) asm.push(ch)
    expect(gaveUp).toBe(true)
    expect(asm.finish).toMatchObject({ kind: 'aborted', failure: { code: 'ABORTED' } })
  })

  it('answers title side calls without consuming steps, and keeps one script per model', async () => {
    const { ctx: c, adapter } = await mount({
      'bot-a': { steps: [{ text: 'A1' }, { text: 'A2' }], title: 'Title A', contextWindow: 5000 },
      'bot-b': { steps: [{ text: 'B1' }] },
    })
    const title = new BlockAssembler()
    for await (const ch of c.llm.stream({
      provider: 'mock',
      model: 'bot-a',
      system: 'Create a concise title for this chat.',
      messages: [],
      purpose: 'session-title',
    }))
      title.push(ch)
    expect(title.blocks()).toEqual([{ type: 'text', text: 'Title A' }])
    const b = await turn(c, 'hi b', 'bot-b', 'sb')
    const a = await turn(c, 'hi a', 'bot-a', 'sa')
    expect(ofType(a.events, 'assistant/message')[0]!.data.message.content[0].text).toBe('A1')
    expect(ofType(b.events, 'assistant/message')[0]!.data.message.content[0].text).toBe('B1')
    expect(adapter.model.remaining()).toEqual({ 'bot-a': 1, 'bot-b': 0 })
    expect((await c.llm.resolveModelInfo('mock', 'bot-a')).context?.contextWindow).toBe(5000)
    expect(ofType(a.events, 'request/context')[0]!.data.contextWindow).toBe(5000)
    expect(adapter.requests[0]!.answeredBy).toBe('title')
  })
})

// Script format, ScriptedModel core, request normalisation and helpers, stream/SSE encoders (pure).
import { describe, expect, it } from 'vitest'
import { isContextWindowExceededError } from '@deepseek-ai/dsh-llm'
import {
  DEFAULT_FALLBACK_TEXT,
  ScriptedModel,
  failureFacts,
  lastToolResults,
  lastUserText,
  messagesSinceLastAssistant,
  normaliseDshMessages,
  normaliseWireMessages,
  replyChunks,
  requestFromOptions,
  requestFromWire,
  resolveUsage,
  sseEvents,
  userTextsSinceLastAssistant,
  wireUsage,
} from '../../../scripts/scripted-model/index.ts'
import type { RecordedRequest, Reply } from '../../../scripts/scripted-model/index.ts'

const RUNTIME = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\ncwd: /x'

function dshMessages() {
  return [
    { role: 'user', content: [{ type: 'text', text: 'first question' }], source: { kind: 'user' } },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool-call', id: 'c1', name: 'alpha', arguments: '{"a":1}' },
        { type: 'tool-call', id: 'c2', name: 'beta', arguments: 'not json' },
      ],
      source: { kind: 'model' },
    },
    // rc.8 shape: tool results as role:'user' with tool-result blocks
    {
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'A!' }], isError: false }],
      source: { kind: 'tool', callId: 'c1' },
    },
    // older/alternative shape: role:'tool'
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c2', content: [{ type: 'text', text: 'B failed' }], isError: true }],
      source: { kind: 'tool', callId: 'c2' },
    },
    { role: 'user', content: [{ type: 'text', text: RUNTIME }], source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' } },
  ]
}

const req = (over: Partial<RecordedRequest> = {}): RecordedRequest => ({
  via: 'adapter',
  index: 0,
  model: 'm',
  system: '',
  tools: [],
  toolNames: [],
  messages: [],
  ...over,
})

describe('normalisation', () => {
  it('expands DSH tool-result blocks (role user or tool) into role:tool messages with resolved tool names', () => {
    const ms = normaliseDshMessages(dshMessages())
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user'])
    expect(ms[1]!.toolCalls).toEqual([
      { id: 'c1', name: 'alpha', arguments: '{"a":1}', args: { a: 1 } },
      { id: 'c2', name: 'beta', arguments: 'not json', args: undefined },
    ])
    expect(ms[2]).toMatchObject({ role: 'tool', text: 'A!', toolCallId: 'c1', toolName: 'alpha', sourceKind: 'tool' })
    expect(ms[2]!.isError).toBeUndefined()
    expect(ms[3]).toMatchObject({ toolName: 'beta', isError: true, text: 'B failed' })
    expect(ms[4]!.runtimeContext).toBe(true)
  })

  it('keeps user text and tool results of one mixed message, text first', () => {
    const ms = normaliseDshMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'note' },
          { type: 'tool-result', toolCallId: 'x', content: [] },
        ],
        source: { kind: 'tool' },
      },
    ])
    expect(ms.map((m) => [m.role, m.text])).toEqual([
      ['user', 'note'],
      ['tool', ''],
    ])
  })

  it('normalises OpenAI wire messages the same way and lifts system text out', () => {
    const { system, messages } = normaliseWireMessages([
      { role: 'system', content: 'SYS' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'text', text: '2' },
        ],
      },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'alpha', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'A!' },
      { role: 'user', content: RUNTIME },
    ])
    expect(system).toBe('SYS')
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(messages[0]!.text).toBe('q2')
    expect(messages[2]).toMatchObject({ toolCallId: 'c1', toolName: 'alpha', text: 'A!' })
    expect(messages[3]!.runtimeContext).toBe(true)
  })

  it('reads purpose, session id, tools and model from both request forms', () => {
    const a = requestFromOptions({
      provider: 'mock',
      model: 'm1',
      messages: [],
      system: 'S',
      purpose: 'session-title',
      sessionId: 's1',
      tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }],
    })
    expect(a).toMatchObject({ via: 'adapter', provider: 'mock', model: 'm1', purpose: 'session-title', sessionId: 's1', toolNames: ['t'] })
    const b = requestFromWire(
      {
        model: 'm2',
        messages: [{ role: 'system', content: 'Create a concise title for this.' }],
        tools: [{ type: 'function', function: { name: 'u', description: 'e', parameters: { type: 'object' } } }],
      },
      { 'x-deepseek-harness-session-id': 's2' },
    )
    expect(b).toMatchObject({ via: 'server', model: 'm2', purpose: 'session-title', sessionId: 's2', toolNames: ['u'] })
    expect(b.tools[0]).toEqual({ name: 'u', description: 'e', parameters: { type: 'object' } })
    expect(requestFromWire({ model: 'm', messages: [] }, { 'x-deepseek-harness-compact': '1' }).purpose).toBe('compaction')
    expect(requestFromWire({ model: 'm', messages: [{ role: 'system', content: 'You are a bot' }] }).purpose).toBeUndefined()
  })
})

describe('request helpers', () => {
  const r = req({
    messages: normaliseDshMessages([...dshMessages().slice(0, 1), { role: 'user', content: [{ type: 'text', text: RUNTIME }], source: { kind: 'plugin' } }]),
  })

  it('userTextsSinceLastAssistant sees the prompt even though the runtime-context message is last', () => {
    expect(r.messages.at(-1)!.runtimeContext).toBe(true)
    expect(userTextsSinceLastAssistant(r)).toEqual(['first question'])
    expect(userTextsSinceLastAssistant(r, { includeRuntimeContext: true })).toEqual(['first question', RUNTIME])
    expect(lastUserText(r)).toBe('first question')
  })

  it('lastToolResults returns the results after the last assistant message only', () => {
    const withTools = req({ messages: normaliseDshMessages(dshMessages()) })
    expect(lastToolResults(withTools)).toEqual([
      { callId: 'c1', name: 'alpha', text: 'A!' },
      { callId: 'c2', name: 'beta', text: 'B failed', isError: true },
    ])
    expect(userTextsSinceLastAssistant(withTools)).toEqual([])
    const later = req({ messages: [...withTools.messages, { role: 'assistant', text: 'done' }, { role: 'user', text: 'next' }] })
    expect(lastToolResults(later)).toEqual([])
    expect(messagesSinceLastAssistant(later).map((m) => m.text)).toEqual(['next'])
  })
})

describe('ScriptedModel', () => {
  it('consumes steps in order, then answers with the fallback', () => {
    const m = new ScriptedModel({ steps: [{ text: 'one' }, { text: 'two' }], fallback: { text: 'fb' } })
    expect([1, 2, 3, 4].map(() => (m.respond(req()) as { text: string }).text)).toEqual(['one', 'two', 'fb', 'fb'])
    expect(m.requests.map((r) => [r.index, r.answeredBy])).toEqual([
      [0, 'step'],
      [1, 'step'],
      [2, 'fallback'],
      [3, 'fallback'],
    ])
  })

  it('a declining function step is not consumed; the fallback answers meanwhile', () => {
    const seen: number[] = []
    const m = new ScriptedModel({
      steps: [
        (r, c) => {
          seen.push(c.step)
          return lastUserText(r) === 'go' ? { text: 'went' } : undefined
        },
        { text: 'after' },
      ],
      fallback: { text: 'waiting' },
    })
    const say = (t: string) => (m.respond(req({ messages: [{ role: 'user', text: t }] })) as { text: string }).text
    expect([say('no'), say('go'), say('x')]).toEqual(['waiting', 'went', 'after'])
    expect(seen).toEqual([0, 0])
  })

  it('answers title side calls without consuming steps, with a per-script title', () => {
    const m = new ScriptedModel({ steps: [{ text: 'real' }], title: (r) => `T:${r.model}` })
    expect(m.respond(req({ purpose: 'session-title' }))).toMatchObject({ text: 'T:m' })
    expect(m.respond(req())).toMatchObject({ text: 'real' })
    expect(m.loopRequests()).toHaveLength(1)
  })

  it('recognises the memory review side call by its system prompt in both forms, answers it from script.review without consuming steps, and leaves it out of loopRequests', () => {
    const system = "You maintain a Bot's long-term memory. Keep only lasting preferences"
    expect(requestFromOptions({ provider: 'mock', model: 'm', messages: [], system }).purpose).toBe('memory-review')
    expect(requestFromWire({ model: 'm', messages: [{ role: 'system', content: system }] }).purpose).toBe('memory-review')
    const m = new ScriptedModel({ steps: [{ text: 'real' }], review: (r) => ({ text: `{"changes":[]}:${r.model}`, usage: { input: 7, output: 2 } }) })
    expect(m.respond(req({ system, purpose: 'memory-review' }))).toEqual({ text: '{"changes":[]}:m', usage: { input: 7, output: 2 } })
    expect(m.respond(req())).toMatchObject({ text: 'real' })
    expect(m.loopRequests()).toHaveLength(1)
    expect(m.requests[0]!.answeredBy).toBe('side-call')
    expect(new ScriptedModel({ steps: [{ text: 'real' }] }).respond(req({ system, purpose: 'memory-review' }))).toEqual({ text: '{"changes":[]}' })
  })

  it('keeps one script per model id, with * for the rest and a default reply when none matches', () => {
    const m = new ScriptedModel({ a: { steps: [{ text: 'A' }] }, '*': { fallback: { text: 'any' } } })
    expect(m.respond(req({ model: 'b' }))).toMatchObject({ text: 'any' })
    expect(m.respond(req({ model: 'a' }))).toMatchObject({ text: 'A' })
    expect(m.respond(req({ model: 'a' }))).toMatchObject({ text: DEFAULT_FALLBACK_TEXT })
    const only = new ScriptedModel({ a: { steps: [] } })
    expect(only.respond(req({ model: 'zzz' }))).toEqual({ text: DEFAULT_FALLBACK_TEXT })
    expect(only.requests[0]!.answeredBy).toBe('default')
  })

  it('push and setScript extend scripts at run time', () => {
    const m = new ScriptedModel({})
    m.push('*', { text: 'pushed' })
    m.setScript('x', { steps: [{ text: 'X' }], contextWindow: 999 })
    expect(m.respond(req())).toMatchObject({ text: 'pushed' })
    expect(m.respond(req({ model: 'x' }))).toMatchObject({ text: 'X' })
    expect(m.contextWindow('x')).toBe(999)
    expect(m.remaining()).toEqual({ '*': 0, x: 0 })
  })
})

describe('usage and failures', () => {
  it('uses scripted usage as DSH disjoint counts and maps it to OpenAI/DeepSeek wire fields', () => {
    const u = resolveUsage(req(), { text: 'x', usage: { input: 10, output: 2, cached: 90 } })
    expect(u).toEqual({ input: 10, output: 2, cached: 90 })
    expect(wireUsage(u)).toEqual({
      prompt_tokens: 100,
      completion_tokens: 2,
      total_tokens: 102,
      prompt_tokens_details: { cached_tokens: 90 },
      prompt_cache_hit_tokens: 90,
      prompt_cache_miss_tokens: 10,
    })
    const est = resolveUsage(req({ system: 'x'.repeat(400) }), { text: 'y'.repeat(40) })
    expect(est).toEqual({ input: 100, output: 10, cached: 0 })
  })

  it("context overflow facts are recognised by dsh-llm's own classifier; other failures are not", () => {
    const f = failureFacts({ fail: 'context-overflow' }, req())
    expect(f.status).toBe(400)
    expect(isContextWindowExceededError([f.code, f.type, f.message].join(' '))).toBe(true)
    expect(isContextWindowExceededError(f.message)).toBe(true)
    const s = failureFacts({ fail: 'server-error' }, req())
    expect(s.status).toBe(500)
    expect(isContextWindowExceededError([s.code, s.type, s.message].join(' '))).toBe(false)
    expect(failureFacts({ fail: 'rate-limit' }, req()).status).toBe(429)
  })
})

describe('encoders', () => {
  function grammar(chunks: ReturnType<typeof replyChunks>) {
    const open = new Set<number>()
    for (const c of chunks.slice(0, -1)) {
      if (c.type === 'block-start') open.add(c.index)
      else if (c.type === 'block-end') {
        expect(open.has(c.index)).toBe(true)
        open.delete(c.index)
      } else if (c.type !== 'usage' && c.type !== 'finish') expect(open.has(c.index)).toBe(true)
    }
    expect(open.size).toBe(0)
    expect(chunks.filter((c) => c.type === 'usage')).toHaveLength(1)
    expect(chunks.filter((c) => c.type === 'finish')).toHaveLength(1)
    expect(chunks.at(-1)!.type).toBe('finish')
  }

  it('in-process chunks follow the block grammar and finish with tool-calls / stop / EMPTY_RESPONSE', () => {
    const r = req({ index: 7 })
    const tool = replyChunks(
      {
        text: 'hm',
        reasoning: 'think',
        toolCalls: [
          { name: 'a', args: { q: 1 } },
          { name: 'b', args: '{"raw":true}', id: 'fixed' },
        ],
      },
      r,
    )
    grammar(tool)
    expect(tool.at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } })
    const ends = tool.filter((c) => c.type === 'block-end').map((c) => (c as { block: unknown }).block)
    expect(ends).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: 'hm' },
      { type: 'tool-call', id: 'call_7_0', name: 'a', arguments: '{"q":1}' },
      { type: 'tool-call', id: 'fixed', name: 'b', arguments: '{"raw":true}' },
    ])
    const text = replyChunks({ text: 'hello', usage: { input: 1, output: 1, cached: 5 } }, r)
    grammar(text)
    expect(text.find((c) => c.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 5 } })
    expect(text.at(-1)).toEqual({ type: 'finish', reason: { kind: 'stop' } })
    const empty = replyChunks({ text: '' }, r)
    expect(empty.at(-1)).toMatchObject({ reason: { kind: 'error', failure: { code: 'EMPTY_RESPONSE' } } })
  })

  it('SSE events carry split content, per-index tool_calls, a finish_reason, trailing usage and [DONE]', () => {
    const reply: Reply = { text: 'abcdefghij', toolCalls: [{ name: 'a', args: { z: 1 } }] }
    const ev = sseEvents(reply, req({ index: 3, model: 'mm' }), { chunkChars: 4, created: 1 })
    expect(ev.at(-1)).toBe('[DONE]')
    const objs = ev.slice(0, -1) as any[]
    expect(objs.every((o) => o.model === 'mm' && o.object === 'chat.completion.chunk')).toBe(true)
    expect(objs.map((o) => o.choices[0]?.delta?.content).filter(Boolean)).toEqual(['abcd', 'efgh', 'ij'])
    expect(objs.flatMap((o) => o.choices[0]?.delta?.tool_calls ?? [])).toEqual([
      { index: 0, id: 'call_3_0', type: 'function', function: { name: 'a', arguments: '' } },
      { index: 0, function: { arguments: '{"z":1}' } },
    ])
    expect(objs.at(-2).choices[0].finish_reason).toBe('tool_calls')
    expect(objs.at(-1).choices).toEqual([])
    expect(objs.at(-1).usage.prompt_tokens_details.cached_tokens).toBe(0)
  })
})

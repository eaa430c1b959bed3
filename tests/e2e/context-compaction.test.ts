// e2e (DSH Web, rc.8): the Bot team agent preset. At start the plugin writes
// $DSH_HOME/.agent-presets/bot-team/ from DSH's own `standard` preset with only the compaction row
// changed (it names the Bot compaction engine module by absolute path); Bot Sessions are created on
// it and run (DSH mounts the preset, the engine module included); a plain chat stays on `standard`.
// DSH's automatic compaction runs on plain chats and never on Bot chats; /compact in a Bot chat
// writes the Bot checkpoint, and so does the steward when a Bot chat crosses its check line.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, inject, it } from 'vitest'
import { dshBin } from '../../scripts/pack.ts'
import type { RecordedRequest, Script } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { botPresetComposition } from '../../src/context/compaction/preset.ts'
import { api, homeWithBundle, startWeb, untilEvents, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

/** A Bot's own work dominates a real conversation; the checkpoint condenses it. */
const WORK = { text: `Done. ${'I read the module, changed the parser and ran the tests again. '.repeat(40)}` }

const estimate = (r: RecordedRequest) => Math.ceil((r.system.length + JSON.stringify(r.tools).length + r.messages.reduce((n, m) => n + m.text.length, 0)) / 4)

let model: ScriptedServer
let web: WebProcess
let home: E2eHome

/** Start DSH Web on a fresh home; `window` sets the DeepSeek models' context window (home patch; an explicit model entry wins over `defaultContextWindow`). */
async function boot(window?: number, script: Pick<Script, 'steward'> = {}) {
  // Usage as a provider reports it (DSH's token meter prices the context from it): chars / 4.
  model = await startScriptedServer({ ...script, fallback: (req) => ({ ...WORK, usage: { input: estimate(req), output: Math.ceil(WORK.text.length / 4) } }) })
  home = await homeWithBundle('compaction', inject('bundleTarball'), [{ name: 'web' }])
  if (window) {
    const patch = join(home.home, 'cordis.patch.yml')
    const text = readFileSync(patch, 'utf8')
    if (!text.includes('    retryPolicy:')) throw new Error('the test home patch changed shape')
    const models = ['deepseek-v4-flash', 'deepseek-v4-pro'].map((id) => `      - { id: ${id}, contextWindow: ${window}, maxTokens: 1000 }`).join('\n')
    writeFileSync(patch, text.replace('    retryPolicy:', `    defaultContextWindow: ${window}\n    models:\n${models}\n    retryPolicy:`))
    // The Bot's own check line at its highest (0.95 of usable, past DSH's 0.8 of the window), so
    // Ada's first part surely grows past DSH's threshold before her steward may hand off.
    writeFileSync(join(home.home, 'profiles', 'web', 'cordis.patch.yml'), '- id: bot-team\n  config:\n    context:\n      checkRatio: 0.95\n')
  }
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
}
afterEach(async () => {
  await web?.stop()
  await model?.close()
})

const sessionRow = async (match: (row: any) => boolean) => {
  for (let i = 0; i < 100; i++) {
    const row = (await api(web.url, 'session.list', {})).items.find(match)
    if (row) return row
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('no such session')
}

it("Bot Sessions run on the Bot team preset, generated from DSH's standard preset; a plain chat stays on standard", async () => {
  await boot()
  const dir = join(home.home, '.agent-presets', 'bot-team')
  const composition = readFileSync(join(dir, 'agent.cordis.yml'), 'utf8')
  const engine = /name: "([^"]+compaction-engine\.mjs)"/.exec(composition)?.[1]
  expect(engine && existsSync(engine)).toBe(true)
  const standard = readFileSync(join(dshBin, '..', '..', 'config', 'agent-presets', 'standard', 'agent.cordis.yml'), 'utf8')
  expect(botPresetComposition(standard, engine!)).toEqual({ ok: true, text: composition })

  const created = await fetch(`${web.url}/bot-team/api/bots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada' }),
  })
  expect(created.status).toBe(201)
  const ada = await sessionRow((s) => s.projections?.values?.title === 'Ada')
  expect(ada.agentPreset).toBe('bot-team')
  expect((await sessionRow((s) => s.projections?.values?.title === 'Main')).agentPreset).toBe('bot-team')

  // The preset mounts (engine module included) and the Bot answers with standard's tools.
  await api(web.url, 'session.prompt', { sessionId: ada.sessionId, mode: 'queue', content: [{ type: 'text', text: 'hello Ada' }] })
  await untilEvents(web.url, ada.sessionId, (evs) => evs.some((e) => e.type === 'assistant/message'), "Ada's answer")
  const toAda = model.model.requests.filter((r) => r.sessionId === ada.sessionId && r.purpose === undefined)
  expect(toAda.length).toBeGreaterThan(0)
  expect(toAda.at(-1)!.toolNames).toContain('bash')

  const plain = await api(web.url, 'session.create', { cwd: home.cwd })
  expect(plain.agentPreset).toBe('standard')
})

const compact = (sessionId: string) => api(web.url, 'commands/execute', { args: { agentId: sessionId, line: '/compact', images: [] } })
const replacementText = (log: any[]) =>
  log
    .filter((e) => e.type === 'user/message' && e.surfaceOp?.op === 'replace')
    .at(-1)
    .data.content.map((b: any) => b.text ?? '')
    .join('')

async function converse(sessionId: string, said: readonly string[], turnsBefore: number) {
  for (const [i, text] of said.entries()) {
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] })
    await untilEvents(web.url, sessionId, (evs) => evs.filter((e) => e.type === 'turn/end').length >= turnsBefore + i + 1, `answer ${i}`)
  }
}

it("a person's /compact in a Bot chat writes the Bot checkpoint (the person's words verbatim and anchored); in a plain chat DSH's summary alone", async () => {
  await boot()
  const created = await fetch(`${web.url}/bot-team/api/bots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada' }),
  })
  expect(created.status).toBe(201)
  const ada = (await sessionRow((s) => s.projections?.values?.title === 'Ada')).sessionId as string
  const said = ['Remember the deploy key lives at /srv/keys/ada-7 and never in git.', 'Port the parser next.', 'Then run the tests.']
  await converse(ada, said, 1) // 1: the bootstrap turn
  expect((await compact(ada)).result.kind).toBe('success')
  const text = replacementText(await untilEvents(web.url, ada, (evs) => evs.some((e) => e.type === 'compaction/summary'), 'the checkpoint'))
  expect(text).toContain('[Checkpoint 1]')
  expect(text).toContain('Summary of the conversation so far (scripted).') // DSH's summarizer, one call
  expect(text).toMatch(/\[part 1 #\d+ · [^\]]+\] From the user:\nRemember the deploy key lives at \/srv\/keys\/ada-7 and never in git\./)
  expect(text).toMatch(/\[part 1 #\d+ · [^\]]+\] From the user:\nThen run the tests\./)
  expect(model.model.requests.filter((r) => r.sessionId === ada && r.purpose === 'compaction')).toHaveLength(1)

  const plain = (await api(web.url, 'session.create', { cwd: home.cwd })).sessionId as string
  await converse(plain, said, 0)
  expect((await compact(plain)).result.kind).toBe('success')
  const plainText = replacementText(await untilEvents(web.url, plain, (evs) => evs.some((e) => e.type === 'compaction/summary'), "DSH's summary"))
  expect(plainText).toContain('Summary of the conversation so far (scripted).')
  expect(plainText).not.toContain('[Checkpoint')
  expect(plainText).not.toContain('/srv/keys/ada-7')
})

/** DSH Web's system prompt and tool list alone are about 8,300 tokens (chars / 4). */
const WINDOW = 16_000

it("DSH's automatic compaction runs on a plain chat past its threshold and never on a Bot chat past it", async () => {
  await boot(WINDOW)
  const created = await fetch(`${web.url}/bot-team/api/bots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada' }),
  })
  expect(created.status).toBe(201)
  const ada = (await sessionRow((s) => s.projections?.values?.title === 'Ada')).sessionId as string
  const plain = (await api(web.url, 'session.create', { cwd: home.cwd })).sessionId as string
  const said = Array.from({ length: 8 }, (_, i) => `Step ${i}: ${'keep going with the parser port and report progress '.repeat(30)}`)
  await converse(ada, said, 1)
  await converse(plain, said, 0)
  const summaries = async (sid: string) =>
    (await api(web.url, 'session.history', { sessionId: sid, maxMessages: 1000 })).events
      .map((e: any) => e.event ?? e)
      .filter((e: any) => e.type === 'compaction/summary')
  expect((await summaries(plain)).length).toBeGreaterThan(0)
  // Ada's chat is every part of it: her own steward may hand off to a new part at any turn end past
  // its check line (the prompts above still reach her current part), so the check covers them all.
  const team = (await (await fetch(`${web.url}/bot-team/api/team`)).json()) as {
    bots: { name: string; chatSessionId?: string; earlierParts?: { sessionId: string }[] }[]
  }
  const adaView = team.bots.find((b) => b.name === 'Ada')!
  const parts = new Set<string>([ada, ...(adaView.chatSessionId ? [adaView.chatSessionId] : []), ...(adaView.earlierParts ?? []).map((p) => p.sessionId)])
  for (const sid of parts) expect(await summaries(sid)).toEqual([])
  // A request of Ada's chat went past DSH's threshold (0.8 of the window; estimated as chars / 4), and DSH made no summary call for her.
  const toAda = model.model.requests.filter((r) => r.sessionId !== undefined && parts.has(r.sessionId))
  expect(Math.max(...toAda.filter((r) => r.purpose === undefined).map(estimate))).toBeGreaterThan(0.8 * WINDOW)
  expect(toAda.filter((r) => r.purpose === 'compaction')).toEqual([])
  expect(model.model.requests.some((r) => r.sessionId === plain && r.purpose === 'compaction')).toBe(true)
})

it("the steward's checkpoint in DSH Web: a Bot chat past its check line is condensed in place (same Session, DSH's summary call), the person's words verbatim and anchored", async () => {
  await boot(WINDOW, { steward: { text: '{"action":"checkpoint","reason":"the work goes on"}' } })
  const created = await fetch(`${web.url}/bot-team/api/bots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada' }),
  })
  expect(created.status).toBe(201)
  const ada = (await sessionRow((s) => s.projections?.values?.title === 'Ada')).sessionId as string
  const summaries = async () =>
    (await api(web.url, 'session.history', { sessionId: ada, maxMessages: 1000 })).events
      .map((e: any) => e.event ?? e)
      .filter((e: any) => e.type === 'compaction/summary')
  const first = `Remember: the invoice parser lives in /srv/app/parser.ts. ${'keep going with the port and report progress '.repeat(30)}`
  let turns = 1 // the bootstrap turn
  for (let i = 0; i < 12 && (await summaries()).length === 0; i++) {
    await converse(ada, [i === 0 ? first : `Step ${i}: ${'keep going with the parser port and report progress '.repeat(30)}`], turns)
    turns++
    // The steward runs after the turn ends (its decision and the checkpoint are side calls).
    for (let k = 0; k < 50 && model.model.requests.filter((r) => r.label === 'steward').length > (await summaries()).length; k++)
      await new Promise((r) => setTimeout(r, 100))
  }
  expect(model.model.requests.filter((r) => r.label === 'steward').length).toBeGreaterThanOrEqual(1)
  const log = await untilEvents(web.url, ada, (evs) => evs.some((e) => e.type === 'compaction/summary'), 'the checkpoint')
  const text = replacementText(log)
  expect(text).toContain('[Checkpoint 1]')
  expect(text).toContain('Summary of the conversation so far (scripted).')
  expect(text).toMatch(/\[part 1 #\d+ · [^\]]+\] From the user:\nRemember: the invoice parser lives in \/srv\/app\/parser\.ts\./)
  // In place: Ada's chat is still its first part, and the checkpoint was DSH's summary call on her Session.
  const team = (await (await fetch(`${web.url}/bot-team/api/team`)).json()) as { bots: { name: string; chatSessionId?: string; earlierParts?: unknown[] }[] }
  const view = team.bots.find((b) => b.name === 'Ada')!
  expect(view.chatSessionId).toBe(ada)
  expect(view.earlierParts ?? []).toEqual([])
  expect(model.model.requests.filter((r) => r.sessionId === ada && r.purpose === 'compaction' && r.label === undefined)).toHaveLength(1)
})

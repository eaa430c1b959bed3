// e2e (DSH Web, rc.8): the Bot team agent preset. At start the plugin writes
// $DSH_HOME/.agent-presets/bot-team/ from DSH's own `standard` preset with only the compaction row
// changed (it names the Bot compaction engine module by absolute path); Bot Sessions are created on
// it and run (DSH mounts the preset, the engine module included); a plain chat stays on `standard`.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, inject, it } from 'vitest'
import { dshBin } from '../../scripts/pack.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { botPresetComposition } from '../../src/context/compaction/preset.ts'
import { api, homeWithBundle, startWeb, untilEvents, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

/** A Bot's own work dominates a real conversation; the checkpoint condenses it. */
const WORK = { text: `Done. ${'I read the module, changed the parser and ran the tests again. '.repeat(40)}` }

let model: ScriptedServer
let web: WebProcess
let home: E2eHome

beforeEach(async () => {
  model = await startScriptedServer({ fallback: WORK })
  home = await homeWithBundle('compaction', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
})
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

it('Bot Sessions run on the Bot team preset, generated from DSH\'s standard preset; a plain chat stays on standard', async () => {
  const dir = join(home.home, '.agent-presets', 'bot-team')
  const composition = readFileSync(join(dir, 'agent.cordis.yml'), 'utf8')
  const engine = /name: "([^"]+compaction-engine\.mjs)"/.exec(composition)?.[1]
  expect(engine && existsSync(engine)).toBe(true)
  const standard = readFileSync(join(dshBin, '..', '..', 'config', 'agent-presets', 'standard', 'agent.cordis.yml'), 'utf8')
  expect(botPresetComposition(standard, engine!)).toEqual({ ok: true, text: composition })

  const created = await fetch(`${web.url}/bot-team/api/bots`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }) })
  expect(created.status).toBe(201)
  const ada = await sessionRow((s) => s.projections?.values?.title === 'Ada')
  expect(ada.agentPreset).toBe('bot-team')
  expect((await sessionRow((s) => s.projections?.values?.title === 'Main')).agentPreset).toBe('bot-team')

  // The preset mounts (engine module included) and the Bot answers with standard's tools.
  await api(web.url, 'session.prompt', { sessionId: ada.sessionId, mode: 'queue', content: [{ type: 'text', text: 'hello Ada' }] })
  await untilEvents(web.url, ada.sessionId, (evs) => evs.some((e) => e.type === 'assistant/message'), 'Ada\'s answer')
  const toAda = model.model.requests.filter((r) => r.sessionId === ada.sessionId && r.purpose === undefined)
  expect(toAda.length).toBeGreaterThan(0)
  expect(toAda.at(-1)!.toolNames).toContain('bash')

  const plain = await api(web.url, 'session.create', { cwd: home.cwd })
  expect(plain.agentPreset).toBe('standard')
})

const compact = (sessionId: string) => api(web.url, 'commands/execute', { args: { agentId: sessionId, line: '/compact', images: [] } })
const replacementText = (log: any[]) => log.filter((e) => e.type === 'user/message' && e.surfaceOp?.op === 'replace').at(-1).data.content.map((b: any) => b.text ?? '').join('')

async function converse(sessionId: string, said: readonly string[], turnsBefore: number) {
  for (const [i, text] of said.entries()) {
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] })
    await untilEvents(web.url, sessionId, (evs) => evs.filter((e) => e.type === 'turn/end').length >= turnsBefore + i + 1, `answer ${i}`)
  }
}

it('a person\'s /compact in a Bot chat writes the Bot checkpoint (the person\'s words verbatim and anchored); in a plain chat DSH\'s summary alone', async () => {
  const created = await fetch(`${web.url}/bot-team/api/bots`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }) })
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
  const plainText = replacementText(await untilEvents(web.url, plain, (evs) => evs.some((e) => e.type === 'compaction/summary'), 'DSH\'s summary'))
  expect(plainText).toContain('Summary of the conversation so far (scripted).')
  expect(plainText).not.toContain('[Checkpoint')
  expect(plainText).not.toContain('/srv/keys/ada-7')
})

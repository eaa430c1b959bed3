// e2e (secrets in DSH Web): the real `dsh web` with the packed bundle and DSH's web profile (its
// shellEnv, bash tool and spill policy), a browser paired with the code DSH prints on its terminal.
// A secret saved for all Bots reaches the Main Bot's shell as $DSH_SECRET_GH_TOKEN; the Bot sees
// only [secret:GH_TOKEN], in a truncated shell output and in DSH's grep over the file it wrote
// (whose structured value also feeds the logged result's `meta`); a scan of the whole DSH_HOME
// finds the literal only in bot/secrets.json and that file, and the model never received it.
import { once } from 'node:events'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { PAIRING_HEADER } from '../../src/web/pairing.ts'
import { api, homeWithBundle, startWeb, untilEvents, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess
let home: E2eHome

const VALUE = 'ghp_E2eSecretValue_0123456789abcdef'
const COMMAND = 'for i in $(seq 1 3000); do echo "line $i $DSH_SECRET_GH_TOKEN"; done | tee many.txt; echo "len=${#DSH_SECRET_GH_TOKEN} [$DSH_SECRET_GH_TOKEN]"'

function script(req: RecordedRequest): Reply {
  const results = lastToolResults(req)
  // After the shell: grep the file it wrote (a result over the spill policy's 50,000 bytes).
  if (results.some((r) => r.text.includes('len='))) return { toolCalls: [{ name: 'grep', args: { pattern: 'line', path: 'many.txt' } }] }
  if (results.length) return { text: 'done' }
  if (userTextsSinceLastAssistant(req).join('\n').includes('run it'))
    return { toolCalls: [{ name: 'bash', args: { command: COMMAND, description: 'use the token' } }] }
  return { text: 'ok' }
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p, { throwIfNoEntry: false })
    if (st?.isDirectory()) walk(p, out)
    else if (st?.isFile()) out.push(p)
  }
  return out
}

beforeEach(async () => {
  model = await startScriptedServer({ fallback: script })
  home = await homeWithBundle('secrets', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
})
afterEach(async () => {
  await web?.stop()
  await model?.close()
})

describe('secrets in DSH Web', () => {
  it("reach the Bot's shell, are masked in shell output and in a structured result's meta, and are on disk only in bot/secrets.json and the Bot's own file", async () => {
    const send = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${web.url}/bot-team/api${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { [PAIRING_HEADER]: token } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, text: await res.text() }
    }
    expect((await send('POST', '/pairing/codes', {})).status).toBe(201)
    // The code reaches DSH's terminal (our pipe) a moment after the answer: wait for that output.
    const codeIn = () => /pairing code for the team page: (\S+)/.exec(web.output())?.[1]
    while (!codeIn()) await Promise.race([once(web.child.stderr!, 'data'), once(web.child.stdout!, 'data')])
    const code = codeIn()
    const paired = await send('POST', '/pairing', { code })
    expect(paired.status).toBe(201)
    const token = JSON.parse(paired.text).token as string
    const saved = await send('PUT', '/secrets/GH_TOKEN', { value: VALUE, scope: 'all', purpose: 'releases' }, token)
    expect(saved.status).toBe(200)
    expect(saved.text).not.toContain('E2eSecretValue')

    const state = JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8'))
    const main = Object.values(state.bots as Record<string, any>).find((b) => b.main)
    const sessionId = main.sessionParts.at(-1).sessionId as string
    expect(sessionId).toBeTruthy()
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: 'please run it' }] })
    const events = await untilEvents(web.url, sessionId, (evs) => evs.filter((e: any) => e.type === 'turn/end').length >= 2, 'the bash turn')
    const [shell, grep] = events.filter((e: any) => e.type === 'tool/result').map((e: any) => JSON.stringify(e.data))
    expect(shell).toContain(`len=${VALUE.length} [[secret:GH_TOKEN]]`)
    expect(grep).toContain('"line":"line 1 [secret:GH_TOKEN]"')
    const result = shell! + grep!
    expect(result).not.toContain('E2eSecretValue')
    expect(JSON.stringify(model.requests)).not.toContain('E2eSecretValue')

    // What stays on disk is what counts: stop DSH Web first (a live process's atomic saves come and
    // go while a scan reads the folder).
    await web.stop()
    const hits = walk(home.home)
      .filter((f) => readFileSync(f).includes('E2eSecretValue'))
      .map((f) => relative(home.home, f))
      .sort()
    expect(hits).toEqual([join('bot', 'secrets.json'), join('bot', 'workspace', 'many.txt')])
  })
})

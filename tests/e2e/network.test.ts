// e2e (the network switch in DSH Web): the real `dsh web` with the packed bundle and DSH's web
// profile (its sandbox, bash tool and DSH_WEB_URL), a browser paired with the code DSH prints on
// its terminal. The Main Bot's shell reaches DSH's /api and the plugin's routes on DSH_WEB_URL; once
// the person switches its network off, the same command reaches neither, DSH_WEB_URL is unset, and
// the workspace is still written.
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { PAIRING_HEADER } from '../../src/web/pairing.ts'
import { api, homeWithBundle, startWeb, untilEvents, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess
let home: E2eHome

/** Each route's status line or "unreachable", then DSH_WEB_URL, then a file written in the workspace. */
const probe = (file: string, port: string) =>
  [
    `port=${port}`,
    'for p in /api/session.list /bot-team/api/status; do (exec 3<>/dev/tcp/127.0.0.1/$port && printf "GET $p HTTP/1.0\\r\\nHost: 127.0.0.1:$port\\r\\n\\r\\n" >&3 && head -1 <&3 | tr -d "\\r") 2>/dev/null || echo "unreachable $p"; done',
    'echo "web=${DSH_WEB_URL:-unset}"',
    `touch ${file} && echo wrote`,
  ].join('; ')

function script(req: RecordedRequest): Reply {
  if (lastToolResults(req).length) return { text: 'done' }
  const [, file, port] = /PROBE (\S+) (\d+)/.exec(userTextsSinceLastAssistant(req).join('\n')) ?? []
  return file && port ? { toolCalls: [{ name: 'bash', args: { command: probe(file, port), description: 'probe the network' } }] } : { text: 'ok' }
}

beforeEach(async () => {
  model = await startScriptedServer({ fallback: script })
  home = await homeWithBundle('network', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
})
afterEach(async () => {
  await web?.stop()
  await model?.close()
})

describe('the network switch in DSH Web', () => {
  it("takes the Main Bot's shell off the network: DSH's /api and the plugin's routes unreachable, DSH_WEB_URL unset, the workspace written", async () => {
    const send = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${web.url}/bot-team/api${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { [PAIRING_HEADER]: token } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, body: JSON.parse(await res.text()) }
    }
    expect((await send('POST', '/pairing/codes', {})).status).toBe(201)
    const codeIn = () => /pairing code for the team page: (\S+)/.exec(web.output())?.[1]
    while (!codeIn()) await Promise.race([once(web.child.stderr!, 'data'), once(web.child.stdout!, 'data')])
    const token = (await send('POST', '/pairing', { code: codeIn() })).body.token as string

    const state = JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8'))
    const main = Object.values(state.bots as Record<string, any>).find((b) => b.main)
    const sessionId = main.sessionParts.at(-1).sessionId as string
    const run = async (file: string, turns: number) => {
      await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: `PROBE ${file} ${new URL(web.url).port}` }] })
      const events = await untilEvents(web.url, sessionId, (evs) => evs.filter((e: any) => e.type === 'turn/end').length >= turns, 'the probe turn')
      return JSON.stringify(events.filter((e: any) => e.type === 'tool/result').at(-1)?.data)
    }
    const ends = async () => (await untilEvents(web.url, sessionId, () => true, 'events')).filter((e: any) => e.type === 'turn/end').length
    const on = await run('on.txt', (await ends()) + 1)
    expect(on).toMatch(/HTTP\/1\.1 \d{3}[^"]*\\nHTTP\/1\.1 200 OK\\nweb=http:\/\/127\.0\.0\.1:\d+\\nwrote/)

    expect((await send('PUT', `/bots/${main.id}/network`, { enabled: false })).status).toBe(403)
    const off = await send('PUT', `/bots/${main.id}/network`, { enabled: false }, token)
    expect(off).toMatchObject({ status: 200, body: { network: false, networkSwitch: { state: 'ready' } } })
    const result = await run('off.txt', (await ends()) + 1)
    expect(result).toContain('unreachable /api/session.list\\nunreachable /bot-team/api/status\\nweb=unset\\nwrote')
    expect(existsSync(join(home.home, 'bot', 'workspace', 'off.txt'))).toBe(true)
  })
})

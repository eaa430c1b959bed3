// Paired browsers on a real DSH web server, in-process: the routes that raise a Bot's authority
// refuse a request without a valid pairing token (a `curl` from a Bot's shell) and change nothing;
// the first browser pairs with a code printed only on DSH's terminal (stderr), later ones with a
// code a paired browser shows.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'
import { prompt } from '../../support/dsh-host.ts'
import { terminalPairingCode, webTeamHostPerTest } from '../../support/web-host.ts'
import { toolResults } from '../delivery/helpers.ts'

// "ok" to everything; "pair us" makes the Bot call `open_pairing_window` (the last test registers it).
const web = webTeamHostPerTest({
  fallback: (req: RecordedRequest): Reply =>
    lastToolResults(req).length
      ? { text: 'done' }
      : userTextsSinceLastAssistant(req).join('\n').includes('pair us')
        ? { toolCalls: [{ name: 'open_pairing_window', args: {} }] }
        : { text: 'ok' },
})

const send = async (method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${web().origin}/bot-team/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { [PAIRING_HEADER]: token } : {}), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}
const terminalCode = () => terminalPairingCode(web().terminal)

/** Pair a browser the way the person does the first time: ask, read the terminal, type the code. */
async function pairFirstBrowser(): Promise<string> {
  const asked = await send('POST', '/pairing/codes', {}, undefined, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' })
  expect(asked).toMatchObject({ status: 201, body: { shownIn: 'terminal' } })
  const paired = await send('POST', '/pairing', { code: terminalCode() }, undefined, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' })
  expect(paired.status).toBe(201)
  return paired.body.token
}

const mainBot = () => web().host.ctx.botRoster.bots()[0]!

describe("routes that raise a Bot's authority need a paired browser", () => {
  it('refuses raising a preset without a valid token, with a message naming the paired team page, and changes nothing', async () => {
    const bot = mainBot()
    await send('PATCH', `/bots/${bot.id}`, { permissionPreset: 'read-only' }) // lowering needs no pairing
    expect(web().host.ctx.botRoster.bot(bot.id)!.permissionPreset).toBe('read-only')
    const revision = web().host.ctx.botStore.state.revision
    for (const token of [undefined, 'A'.repeat(43), 'not a token']) {
      for (const preset of ['workspace-write', 'danger-full-access']) {
        const r = await send('PATCH', `/bots/${bot.id}`, { permissionPreset: preset, role: 'Boss' }, token)
        expect(r.status).toBe(403)
        expect(r.body.error).toMatch(/paired team page/)
      }
    }
    const created = await send('POST', '/bots', { name: 'Root', permissionPreset: 'danger-full-access' })
    expect(created.status).toBe(403)
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(
      web()
        .host.ctx.botRoster.bots()
        .map((b) => [b.name, b.role, b.permissionPreset]),
    ).toEqual([['Main', 'Lead', 'read-only']])
  })

  it('lets ordinary changes, lowering and a default-preset create through the fence alone', async () => {
    const bot = mainBot()
    expect(await send('PATCH', `/bots/${bot.id}`, { role: 'Chief' })).toMatchObject({ status: 200, body: { bot: { role: 'Chief' } } })
    expect((await send('PATCH', `/bots/${bot.id}`, { permissionPreset: 'workspace-write' })).status).toBe(200) // unchanged rank
    expect((await send('POST', '/bots', { name: 'Ada', permissionPreset: 'read-only' })).status).toBe(201)
  })

  it('accepts the raise from a paired browser', async () => {
    const token = await pairFirstBrowser()
    const bot = mainBot()
    const r = await send('PATCH', `/bots/${bot.id}`, { permissionPreset: 'danger-full-access' }, token)
    expect(r.status).toBe(200)
    expect(web().host.ctx.botRoster.bot(bot.id)!.permissionPreset).toBe('danger-full-access')
    expect((await send('POST', '/bots', { name: 'Root', permissionPreset: 'danger-full-access' }, token)).status).toBe(201)
  })

  it('refuses making a Bot a Main Bot without pairing, on create and change; paired, it is made one', async () => {
    const ada = (await send('POST', '/bots', { name: 'Ada' })).body.bot
    const revision = web().host.ctx.botStore.state.revision
    for (const [method, path, body] of [
      ['PATCH', `/bots/${ada.id}`, { main: true }],
      ['POST', '/bots', { name: 'Bo', main: true }],
    ] as const) {
      const r = await send(method, path, body)
      expect(r.status).toBe(403)
      expect(r.body.error).toMatch(/paired team page/)
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(web().host.ctx.botRoster.bot(ada.id)!.main).toBe(false)
    const token = await pairFirstBrowser()
    expect(await send('PATCH', `/bots/${ada.id}`, { main: true }, token)).toMatchObject({ status: 200 })
    expect(web().host.ctx.botRoster.bot(ada.id)!.main).toBe(true)
    // Taking the role away again lowers authority: the fence is enough.
    expect(await send('PATCH', `/bots/${ada.id}`, { main: false })).toMatchObject({ status: 200 })
    expect(web().host.ctx.botRoster.bot(ada.id)!.main).toBe(false)
  })

  it("refuses setting or clearing a Bot's working folder without pairing, on create and change; paired, it is set", async () => {
    const bot = mainBot()
    const folder = web().host.cwd
    const revision = web().host.ctx.botStore.state.revision
    for (const [method, path, body] of [
      ['PATCH', `/bots/${bot.id}`, { workFolder: folder }],
      ['PATCH', `/bots/${bot.id}`, { workFolder: null }],
      ['POST', '/bots', { name: 'Ada', workFolder: folder }],
    ] as const) {
      const r = await send(method, path, body)
      expect(r.status).toBe(403)
      expect(r.body.error).toMatch(/paired team page/)
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    const token = await pairFirstBrowser()
    expect(await send('PATCH', `/bots/${bot.id}`, { workFolder: 'relative/x' }, token)).toMatchObject({
      status: 400,
      body: { error: /workFolder: must be an absolute path/ },
    })
    expect(await send('PATCH', `/bots/${bot.id}`, { workFolder: folder }, token)).toMatchObject({ status: 200, body: { bot: { workFolder: folder } } })
    expect(web().host.ctx.botRoster.bot(bot.id)!.workFolder).toBe(folder)
  })

  it('refuses the delegated-work flag without pairing; paired, it validates the body and reaches the roster', async () => {
    const bot = mainBot()
    const revision = web().host.ctx.botStore.state.revision
    const refused = await send('PUT', `/bots/${bot.id}/delegated-work`, { accepts: true })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toMatch(/paired team page/)
    const token = await pairFirstBrowser()
    expect(await send('PUT', `/bots/${bot.id}/delegated-work`, { accepts: 'yes' }, token)).toMatchObject({
      status: 400,
      body: { error: /accepts: must be true or false/ },
    })
    expect(await send('PUT', `/bots/${bot.id}/delegated-work`, { accepts: true, extra: 1 }, token)).toMatchObject({ status: 400, body: { error: /extra/ } })
    expect(await send('PUT', '/bots/constructor/delegated-work', { accepts: true }, token)).toMatchObject({ status: 404 })
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(await send('PUT', `/bots/${bot.id}/delegated-work`, { accepts: true }, token)).toMatchObject({ status: 200, body: { acceptsDelegatedWork: true } })
    expect(web().host.ctx.botRoster.bot(bot.id)!.acceptsDelegatedWork).toBe(true)
  })
})

describe('the pairing routes', () => {
  it('pairs the first browser by a code printed only on the terminal; the file keeps a hash, mode 0600', async () => {
    const before = await send('GET', '/pairing')
    expect(before).toEqual({ status: 200, body: { paired: false, devices: [], nextPairing: 'terminal', window: true } })
    const asked = await send('POST', '/pairing/codes', {})
    expect(JSON.stringify(asked.body)).not.toContain(terminalCode()!)
    expect(await send('POST', '/pairing', { code: 'AAAA-AAAA' })).toMatchObject({ status: 403, body: { error: /Wrong or expired/ } })
    const paired = await send('POST', '/pairing', { code: terminalCode() }, undefined, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' })
    expect(paired).toMatchObject({ status: 201, body: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), device: { label: 'Chrome on Linux' } } })
    const file = join(web().host.home, 'bot', 'pairing.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).not.toContain(paired.body.token)
    const status = await send('GET', '/pairing', undefined, paired.body.token)
    expect(status.body).toEqual({
      paired: true,
      deviceId: paired.body.device.id,
      nextPairing: 'paired-browser',
      devices: [{ id: paired.body.device.id, label: 'Chrome on Linux', createdAt: expect.any(String), lastUsedAt: expect.any(String) }],
    })
  })

  it('pairs a second browser only by a code the paired one shows, and unpairs it', async () => {
    const first = await pairFirstBrowser()
    const printed = web().terminal.length
    expect(await send('POST', '/pairing/codes', {})).toMatchObject({ status: 403, body: { error: /Pair another browser/ } })
    expect(web().terminal.length).toBe(printed) // nothing more printed once a browser is paired
    const shown = await send('POST', '/pairing/codes', {}, first)
    expect(shown).toMatchObject({ status: 201, body: { code: expect.stringMatching(/^\w{4}-\w{4}$/) } })
    const second = await send('POST', '/pairing', { code: shown.body.code }, undefined, { 'user-agent': 'curl/8.5.0' })
    expect(second.status).toBe(201)
    expect((await send('GET', '/pairing')).body.devices.map((d: any) => d.label)).toEqual(['Chrome on Linux', 'curl'])
    expect(await send('DELETE', `/pairing/devices/${second.body.device.id}`)).toMatchObject({ status: 403 })
    expect(await send('DELETE', `/pairing/devices/${second.body.device.id}`, undefined, first)).toMatchObject({
      status: 200,
      body: { device: { id: second.body.device.id } },
    })
    expect((await send('GET', '/pairing', undefined, second.body.token)).body.paired).toBe(false)
  })

  it('answers bad pairing input with a clear 4xx', async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', '/pairing', {}, 400, /code/],
      ['POST', '/pairing', { code: 'x'.repeat(33) }, 400, /too long/],
      ['POST', '/pairing', { code: 'ABCD-EFGH', token: 'mine' }, 400, /token/],
      ['POST', '/pairing/codes', { code: 'x' }, 400, /code/],
      ['POST', '/pairing', { code: 'ABCD-EFGH', window: 'w' }, 400, /one of them/],
      ['POST', '/pairing', { window: 'x'.repeat(65) }, 400, /too long/],
      ['POST', '/pairing/window', { please: true }, 400, /please/],
      ['GET', '/pairing/window', undefined, 405, /not allowed/],
      ['POST', '/pairing', { window: 'no-such-window' }, 403, /No pairing window is open/],
      ['PUT', '/pairing', {}, 405, /not allowed/],
      ['DELETE', '/pairing/devices/zzz', undefined, 403, /paired team page/],
      ['GET', '/pairing/other', undefined, 404, /no such route/],
    ]
    for (const [method, path, body, status, message] of cases) {
      const r = await send(method, path, body)
      expect({ method, path, status: r.status }).toEqual({ method, path, status })
      expect(r.body.error).toMatch(message)
    }
    const big = await fetch(`${web().origin}/bot-team/api/pairing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'x'.repeat(2000) }),
    })
    expect(big.status).toBe(413)
  })
})

describe('the one-time pairing window (DSH Desktop has no terminal)', () => {
  it("a request for it from a Bot's turn (as its shell's curl would send it) is refused and pairs nothing; the person's, with every chat idle, holds Bot work and pairs the browser", async () => {
    const { host, origin } = web()
    // The Bot's tool sends what a `curl` in its shell would: loopback, no token.
    host.ctx.tools.register(
      defineTool({
        name: 'open_pairing_window',
        description: 'asks for a pairing window',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v: string) => [{ type: 'text', text: v }] },
        async execute() {
          const post = (path: string, body: unknown) =>
            fetch(`${origin}/bot-team/api${path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
              body: JSON.stringify(body),
            })
          const opened = await post('/pairing/window', {})
          const answer = (await opened.json()) as { window?: string; error?: string }
          const claimed = await post('/pairing', { window: answer.window ?? 'guess' })
          return `window ${opened.status} ${answer.error ?? ''} | claim ${claimed.status}`
        },
      }),
    )
    const main = mainBot()
    await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'pair us')
    const result = toolResults(await host.ctx.botRoster.agentOf(main.id), 'open_pairing_window')[0]!
    expect(result).toMatch(/^window 409 Main is working\. A pairing window opens only while every chat is idle.* \| claim 403$/)
    expect((await send('GET', '/pairing')).body).toMatchObject({ devices: [], nextPairing: 'terminal', window: true })

    // The person at the window: every chat idle now.
    const opened = await send('POST', '/pairing/window', {}, undefined, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' })
    expect(opened).toMatchObject({ status: 201, body: { window: expect.any(String), expiresAt: expect.any(String) } })
    expect(host.ctx.botPause.heldBecause({ botId: main.id })).toMatch(/pairing window is open/)
    const paired = await send('POST', '/pairing', { window: opened.body.window }, undefined, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' })
    expect(paired).toMatchObject({ status: 201, body: { token: expect.any(String), device: { label: 'Chrome on Linux (window)' } } })
    expect(host.ctx.botPause.heldBecause({ botId: main.id })).toBeUndefined()
    expect((await send('PUT', '/pause', { paused: true }, paired.body.token)).status).toBe(200)
    expect(web().terminal.join('\n')).not.toMatch(/pairing code/)
  })
})

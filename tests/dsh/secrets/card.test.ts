// botSecrets on the in-process DSH core with DSH's real bash tool, shellEnv and web server: the
// card flow over HTTP (request → card → value → the Bot is told; cancel; "this Bot" vs "all
// Bots"), whose shell gets the variable (the asking Bot's; not another Bot's, not a plain
// Session's), revocation, names, the pairing fence, and that no HTTP answer ever holds a value.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { disposedAfterEach, prompt, runTurn, type DshHost } from '../../support/dsh-host.ts'
import { captureTerminal } from '../../support/web-host.ts'
import { quiesce, toolResults, userMessages } from '../delivery/helpers.ts'
import { bots } from '../rooms/helpers.ts'
import { asker, secretsTeam, SHOW } from './helpers.ts'

const track = disposedAfterEach()
afterEach(() => vi.restoreAllMocks())

const VALUE = 'ghp_T0ken-Value/With+Signs=and"quotes"42'
const team = async () => {
  const terminal = captureTerminal()
  const t = await secretsTeam({ ada: asker(SHOW), bob: asker(SHOW), mock: asker(SHOW) }, terminal)
  track(t.host)
  return t
}
const agentOf = (host: DshHost, id: string) => host.ctx.botRoster.agentOf(id)
const lastBash = (agent: Awaited<ReturnType<typeof agentOf>>) => toolResults(agent, 'bash').at(-1)

async function askAndOpenCard(t: Awaited<ReturnType<typeof team>>, botId: string) {
  await prompt(t.host, await agentOf(t.host, botId), 'I need the token for the release')
  await quiesce(t.host)
  const listed = await t.send('GET', '/secrets')
  expect(listed.status).toBe(200)
  return listed.body.requests.find((r: any) => r.bot.id === botId)
}

describe('the secret card over HTTP', () => {
  it('request → card → value for "this Bot": the Bot is told the variable (never the value) and only its shell gets it', async () => {
    const t = await team()
    const { Ada, Bob } = await bots(t.host, ['Ada', 'Bob'])
    const ada = await agentOf(t.host, Ada!)
    const card = await askAndOpenCard(t, Ada!)
    expect(card).toMatchObject({ bot: { name: 'Ada' }, name: 'GH_TOKEN', variable: 'DSH_SECRET_GH_TOKEN', purpose: 'push to GitHub', exists: false })
    expect(toolResults(ada, 'request_secret').at(-1)).toMatch(/secret card .* End your turn/)

    const saved = await t.send('POST', `/secrets/requests/${card.id}`, { value: `  ${VALUE}\n`, scope: 'bot' })
    expect(saved.status).toBe(200)
    expect(saved.body.secret).toMatchObject({ name: 'GH_TOKEN', scope: { bots: [{ id: Ada, name: 'Ada' }] }, requestedBy: { name: 'Ada' } })
    await quiesce(t.host)

    const note = userMessages(ada).find((m) => m.text.includes('The user saved GH_TOKEN'))!
    expect(note.text).toContain('$DSH_SECRET_GH_TOKEN')
    expect(note.source).toMatchObject({ kind: 'plugin', type: 'secret-note', name: 'GH_TOKEN' })
    // The asking Bot's shell has the value (its length), and what it saw is masked.
    expect(lastBash(ada)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    // Another Bot's shell and a plain DSH Session's shell do not get the variable.
    const bob = await agentOf(t.host, Bob!)
    await prompt(t.host, bob, 'run it')
    expect(lastBash(bob)).toBe('len=0 [unset]\n')
    const plain = await runTurn(t.host, 'run it')
    expect(toolResults(plain, 'bash').at(-1)).toBe('len=0 [unset]\n')

    // The value is only in bot/secrets.json (0600), never in state.json or an HTTP answer.
    const file = join(t.host.home, 'bot', 'secrets.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toContain(JSON.stringify(VALUE).slice(1, -1))
    expect(readFileSync(join(t.host.home, 'bot', 'state.json'), 'utf8')).not.toContain('T0ken')
    const listed = await t.send('GET', '/secrets')
    expect(listed.body).toMatchObject({ secrets: [{ name: 'GH_TOKEN', variable: 'DSH_SECRET_GH_TOKEN' }], requests: [] })
    expect(listed.body.secrets[0].lastUsedAt).toBeTruthy()
    for (const r of [saved, listed]) expect(r.text).not.toContain('T0ken')
    // The model never received the literal.
    expect(JSON.stringify(t.host.adapter.requests)).not.toContain('T0ken')
  })

  it('"all Bots" puts the secret in every Bot\'s shell; another Bot asking for it is told it is already there', async () => {
    const t = await team()
    const { Ada, Bob } = await bots(t.host, ['Ada', 'Bob'])
    const card = await askAndOpenCard(t, Ada!)
    expect((await t.send('POST', `/secrets/requests/${card.id}`, { value: VALUE, scope: 'all' })).body.secret.scope).toBe('all')
    await quiesce(t.host)
    const bob = await agentOf(t.host, Bob!)
    await prompt(t.host, bob, 'run it')
    expect(lastBash(bob)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    await prompt(t.host, bob, 'I need the token too')
    expect(toolResults(bob, 'request_secret').at(-1)).toMatch(/already available: use "\$DSH_SECRET_GH_TOKEN"/)
    expect((await t.send('GET', '/secrets')).body.requests).toEqual([])
  })

  it('cancel tells the Bot the user declined (do not ask again), stores nothing and gives no shell a value', async () => {
    const t = await team()
    const { Ada } = await bots(t.host, ['Ada'])
    const card = await askAndOpenCard(t, Ada!)
    expect(await t.send('DELETE', `/secrets/requests/${card.id}`)).toMatchObject({ status: 200, body: { cancelled: card.id } })
    await quiesce(t.host)
    const ada = await agentOf(t.host, Ada!)
    expect(userMessages(ada).find((m) => m.text.includes('declined'))!.text).toMatch(/Do not ask for it again unless the user brings it up/)
    expect((await t.send('GET', '/secrets')).body).toMatchObject({ secrets: [], requests: [] })
    await prompt(t.host, ada, 'run it')
    expect(lastBash(ada)).toBe('len=0 [unset]\n')
    expect(await t.send('POST', `/secrets/requests/${card.id}`, { value: VALUE, scope: 'bot' })).toMatchObject({ status: 404 })
  })

  it('revocation: deleting the secret removes it from the next command; deleting its Bot revokes a secret scoped to it', async () => {
    const t = await team()
    const { Ada, Bob } = await bots(t.host, ['Ada', 'Bob'])
    const ada = await agentOf(t.host, Ada!)
    expect((await t.send('PUT', '/secrets/GH_TOKEN', { value: VALUE, scope: ['Ada'], purpose: 'releases' })).status).toBe(200)
    await prompt(t.host, ada, 'run it')
    expect(lastBash(ada)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    expect(await t.send('DELETE', '/secrets/GH_TOKEN')).toMatchObject({ status: 200, body: { deleted: 'GH_TOKEN' } })
    await prompt(t.host, ada, 'run it')
    expect(lastBash(ada)).toBe('len=0 [unset]\n')

    expect((await t.send('PUT', '/secrets/gh-token', { value: VALUE, scope: [Bob] })).body.secret.scope).toEqual({ bots: [{ id: Bob, name: 'Bob' }] })
    await t.host.ctx.botRoster.delete({ kind: 'user' }, Bob!, 'leaving')
    await t.host.ctx.botSecrets.settled()
    expect((await t.send('GET', '/secrets')).body.secrets).toEqual([])
    expect(readFileSync(join(t.host.home, 'bot', 'secrets.json'), 'utf8')).not.toContain('T0ken')
  })
})

describe('names, bad input and the pairing fence', () => {
  it('normalises names ($GH_TOKEN, gh-token, DSH_SECRET_…) and refuses invalid ones, from the tool and over HTTP', async () => {
    const t = await team()
    const { Ada } = await bots(t.host, ['Ada'])
    expect(await t.host.ctx.botSecrets.request(t.host.ctx.botRoster.bot(Ada!)!.sessionParts.at(-1)!.sessionId, '$gh-token', 'ci')).toMatch(
      /Asked the user for GH_TOKEN/,
    )
    for (const raw of ['%24GH_TOKEN', 'gh-token', 'DSH_SECRET_GH_TOKEN']) {
      expect((await t.send('PUT', `/secrets/${raw}`, { value: VALUE, scope: 'all' })).body.secret.name).toBe('GH_TOKEN')
    }
    for (const raw of ['1abc', 'a.b', 'x'.repeat(70)]) {
      const r = await t.send('PUT', `/secrets/${raw}`, { value: VALUE, scope: 'all' })
      expect(r.status).toBe(400)
      expect(r.body.error).toMatch(/not a usable secret name/)
    }
    await expect(t.host.ctx.botSecrets.request(t.host.ctx.botRoster.bot(Ada!)!.sessionParts.at(-1)!.sessionId, 'no good!', 'ci')).rejects.toThrow(
      /not a usable secret name/,
    )
    expect((await t.send('GET', '/secrets')).body.secrets.map((s: any) => s.name)).toEqual(['GH_TOKEN'])
  })

  it('every change needs a paired browser; bad input gets a 4xx that never quotes the value, and changes nothing', async () => {
    const t = await team()
    const { Ada } = await bots(t.host, ['Ada'])
    const card = await askAndOpenCard(t, Ada!)
    const unpaired: [string, string, unknown][] = [
      ['POST', `/secrets/requests/${card.id}`, { value: VALUE, scope: 'bot' }],
      ['DELETE', `/secrets/requests/${card.id}`, undefined],
      ['PUT', '/secrets/GH_TOKEN', { value: VALUE, scope: 'all' }],
      ['DELETE', '/secrets/GH_TOKEN', undefined],
    ]
    for (const [method, path, body] of unpaired) {
      const r = await t.send(method, path, body, { paired: false })
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 403 })
    }
    const bad: [string, string, unknown, number, RegExp][] = [
      ['POST', `/secrets/requests/${card.id}`, { value: 'ab', scope: 'bot' }, 400, /too short/],
      ['POST', `/secrets/requests/${card.id}`, { value: VALUE, scope: 'everyone' }, 400, /scope must be/],
      ['POST', `/secrets/requests/${card.id}`, { value: VALUE, scope: 'bot', extra: 1 }, 400, /extra/],
      ['POST', `/secrets/requests/${card.id}`, `{"value": "${VALUE.replace(/"/g, '')}", `, 400, /^request body is not valid JSON$/],
      ['POST', `/secrets/requests/${card.id}`, { value: 'x'.repeat(16_385), scope: 'bot' }, 400, /too long/],
      ['POST', '/secrets/requests/nope', { value: VALUE, scope: 'bot' }, 404, /no open secret request/],
      ['PUT', '/secrets/NEW_ONE', { scope: 'all' }, 400, /give its value/],
      ['PUT', '/secrets/NEW_ONE', { value: VALUE, scope: ['Nobody'] }, 404, /No Bot/],
      ['GET', '/secrets/GH_TOKEN', undefined, 405, /not allowed/],
      ['DELETE', '/secrets/NOT_SAVED', undefined, 404, /no saved secret/],
    ]
    for (const [method, path, body, status, message] of bad) {
      const r = await t.send(method, path, body)
      expect({ method, path, status: r.status }).toEqual({ method, path, status })
      expect(r.body.error).toMatch(message)
      expect(r.text).not.toContain('T0ken')
    }
    expect((await t.send('GET', '/secrets')).body).toMatchObject({ secrets: [], requests: [{ id: card.id }] })
  })
})

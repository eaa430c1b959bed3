// "Start a new part now" on a real DSH web server, in-process: the person's POST ends the Bot's
// current own-chat part with the context service's handoff (the package written under the bot
// folder, sent as the new part's first message) and opens the next part in the Bot's working
// folder; it needs a paired browser (it spends a model call); refused with 409 while the Bot is
// working; bad requests change nothing.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionId } from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { readSourceOf } from '../../../src/core/sources.ts'
import { captureTerminal, pairBrowser, startWebTeamHost, type WebTeamHost } from '../../support/web-host.ts'
import { prompt } from '../../support/dsh-host.ts'
import { quiesce, slowTool, userMessages, userPrompt } from '../delivery/helpers.ts'

let web: WebTeamHost | undefined
afterEach(async () => {
  await web?.host.dispose()
})

/** "ok" to everything; a message containing SLOW makes the Bot call the `slow` tool first. */
const model = (req: RecordedRequest): Reply => {
  if (lastToolResults(req).length) return { text: 'done' }
  return userTextsSinceLastAssistant(req).join('\n').includes('SLOW') ? { toolCalls: [{ name: 'slow', args: {} }] } : { text: 'ok' }
}

describe('POST /bots/<id>/new-part', () => {
  it("a paired browser's request ends the current part with the handoff package, opens the next part in the Bot's working folder, and its opening says the user started it", async () => {
    const terminal = captureTerminal()
    web = await startWebTeamHost({ fallback: model })
    const { host } = web
    const token = await pairBrowser(web, terminal)
    const folder = join(host.home, 'code', 'x')
    mkdirSync(folder, { recursive: true })
    const created = await web.send('POST', '/bots', { name: 'Ada' })
    const id = created.body.bot.id as string
    const first = host.ctx.botRoster.bot(id)!.sessionParts[0]!.sessionId
    await prompt(host, await host.ctx.botRoster.agentOf(id), 'Remember the word MARMALADE.')
    const paired = { 'content-type': 'application/json', 'x-bot-team-pairing': token }
    const set = await web.send('PATCH', `/bots/${id}`, { workFolder: folder }, paired)
    expect(set.status).toBe(200)

    const r = await web.send('POST', '/bots/Ada/new-part', {}, paired)
    expect(r).toMatchObject({ status: 201, body: { bot: { id, workFolder: folder }, sessionId: expect.stringMatching(/^session-/) } })
    const parts = host.ctx.botRoster.bot(id)!.sessionParts
    expect(parts.map((p) => p.sessionId)).toEqual([first, r.body.sessionId])
    expect(parts[0]).toMatchObject({ endedAt: expect.any(String), endReason: 'handoff: the person started a new part' })
    expect(parts[1]).toMatchObject({ part: 2, note: `context/${id}/part-2.md` })
    // the new Session is created in the Bot's folder; the package is the context service's, carrying the conversation
    const agent = host.ctx.agents.get(SessionId(r.body.sessionId))!
    expect(agent.session.header.cwd).toBe(folder)
    const file = join(host.home, 'bot', `context/${id}/part-2.md`)
    expect(existsSync(file)).toBe(true)
    expect(readFileSync(file, 'utf8')).toContain('MARMALADE')
    await quiesce(host)
    const opening = userMessages(agent)[0]!
    expect(readSourceOf(opening.source, 'handoff')).toMatchObject({ part: 2, resume: false })
    expect(opening.text).toContain('MARMALADE')
    expect(opening.text).toContain('The user started this new part; your conversation continues here from part 1.')
    expect(opening.text).not.toContain('grew long')
  })

  it("a new part asked for without a paired browser (the service called without `paired`) is not recorded as the person's: the end reason and the opening say it was requested", async () => {
    web = await startWebTeamHost({ fallback: model })
    const { host } = web
    const id = (await web.send('POST', '/bots', { name: 'Ada' })).body.bot.id as string
    await prompt(host, await host.ctx.botRoster.agentOf(id), 'hello')
    const sessionId = await host.ctx.botContext.newPart(id)
    expect(host.ctx.botRoster.bot(id)!.sessionParts[0]).toMatchObject({ endReason: 'handoff: a new part was requested (not from a paired browser)' })
    await quiesce(host)
    const opening = userMessages(host.ctx.agents.get(SessionId(sessionId))!)[0]!
    expect(opening.text).toContain("A new part was asked for through the team's API, not from the user's paired browser;")
    expect(opening.text).not.toContain('The user started')
  })

  it('is refused with 409 while the Bot is working, and changes nothing', async () => {
    const terminal = captureTerminal()
    web = await startWebTeamHost({ fallback: model })
    const { host } = web
    const token = await pairBrowser(web, terminal)
    const slow = slowTool(host, 'until-released')
    const id = (await web.send('POST', '/bots', { name: 'Ada' })).body.bot.id as string
    userPrompt(await host.ctx.botRoster.agentOf(id), 'SLOW please')
    await slow.running()
    const revision = host.ctx.botStore.state.revision
    const r = await web.send('POST', `/bots/${id}/new-part`, {}, { 'content-type': 'application/json', 'x-bot-team-pairing': token })
    expect(r.status).toBe(409)
    expect(r.body.error).toMatch(/Ada is working now.*Wait until it is idle/)
    expect(host.ctx.botStore.state.revision).toBe(revision)
    slow.release()
    await quiesce(host)
    expect(host.ctx.botRoster.bot(id)!.sessionParts).toHaveLength(1)
  })

  it('answers bad requests with a clear 4xx and changes nothing', async () => {
    web = await startWebTeamHost()
    const { host } = web
    const revision = host.ctx.botStore.state.revision
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', '/bots/Main/new-part', undefined, 405, /not allowed/],
      ['POST', '/bots/Nobody/new-part', {}, 404, /No Bot/],
      ['POST', '/bots/Main/new-part', { part: 3 }, 400, /part/],
      ['POST', '/bots/Main/new-part', JSON.stringify({ x: 'y'.repeat(5000) }), 413, /larger/],
    ]
    for (const [method, path, body, status, message] of cases) {
      const r = await web.send(method, path, body)
      expect({ path, status: r.status }).toEqual({ path, status })
      expect(r.body.error).toMatch(message)
    }
    expect(host.ctx.botStore.state.revision).toBe(revision)
  })
})

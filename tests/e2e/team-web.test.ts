// e2e (team in DSH Web): the Main Bot, driven through DSH Web's own /api like a user would, creates
// a Bot and a group with its team tools; a room post is answered by the members from their hidden
// Sessions with zero provider calls for the room itself; message_bot reaches the other Bot's own
// chat and its answer comes back to the sender. Each test has its own DSH_HOME, DSH Web and model.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { api, homeWithBundle, sessionEvents, startWeb, untilEvents, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess
let home: E2eHome

/** One scripted model for every Session: it answers as whoever the system prompt says it is. */
function teamScript(req: RecordedRequest): Reply {
  const me = /You are ([^\s,]+),/.exec(req.system)?.[1] ?? 'nobody'
  if (req.system.includes('You are speaking in the group')) return { text: `${me} says hello to the group` }
  const results = lastToolResults(req)
  if (results.length) return { text: `${me} saw: ${results[0]!.text}` }
  const said = userTextsSinceLastAssistant(req).join('\n')
  if (me === 'Main' && said.includes('make Ada')) return { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: 'Ada', role: 'Reviewer' } }] }
  if (me === 'Main' && said.includes('make group'))
    return { toolCalls: [{ name: 'manage_group', args: { action: 'create', name: 'Crew', members: ['Main', 'Ada'], admin: 'Main', mode: 'everyone' } }] }
  if (me === 'Main' && said.includes('ask Ada'))
    return { toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'What is 2+2? Answer with a number.' } }] }
  if (me === 'Ada' && said.includes('What is 2+2?')) return { text: 'Ada answers: 4' }
  return { text: `${me}: ok` }
}

const events = (sessionId: string) => sessionEvents(web.url, sessionId)
const until = (sessionId: string, done: (events: any[]) => boolean, what: string) => untilEvents(web.url, sessionId, done, what)

const turnsEnded = (n: number) => (evs: any[]) => evs.filter((e) => e.type === 'turn/end').length >= n
const texts = (evs: any[]) => evs.filter((e) => e.type === 'assistant/message').map((e) => e.data.message.content.map((b: any) => b.text ?? '').join(''))
const sessionTitled = async (title: string) => {
  for (let i = 0; i < 100; i++) {
    const row = (await api(web.url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === title)
    if (row) return row.sessionId as string
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no session titled ${title}`)
}
const teamState = () => JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8'))

beforeEach(async () => {
  model = await startScriptedServer({ fallback: teamScript })
  home = await homeWithBundle('team-web', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
})
afterEach(async () => {
  await web?.stop()
  await model?.close()
})

describe('a team at work in DSH Web', () => {
  it('the Main Bot creates a Bot and a group; a room post is answered by the members, the room itself calls no model', async () => {
    const main = await sessionTitled('Main')
    let ended = (await events(main)).filter((e) => e.type === 'turn/end').length
    await api(web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'please make Ada' }] })
    expect(texts(await until(main, turnsEnded(++ended), 'the new Bot')).at(-1)).toMatch(/Main saw: Created Bot Ada/)
    const ada = await sessionTitled('Ada') // Ada's own chat is a listed DSH Web chat

    await api(web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'now make group' }] })
    expect(texts(await until(main, turnsEnded(++ended), 'the new group')).at(-1)).toMatch(/Main saw: .*Crew/)
    const room = await sessionTitled('Crew')

    const roomTurns = (await events(room)).filter((e) => e.type === 'turn/end').length
    await api(web.url, 'session.prompt', { sessionId: room, mode: 'queue', content: [{ type: 'text', text: 'hello team' }] })
    const roomLog = await until(room, turnsEnded(roomTurns + 1), 'the round')
    const posted = texts(roomLog).join('\n')
    // everyone mode: the admin first, then the others, each under its own name
    expect(posted.indexOf('Main says hello to the group')).toBeGreaterThanOrEqual(0)
    expect(posted.indexOf('Ada says hello to the group')).toBeGreaterThan(posted.indexOf('Main says hello to the group'))
    expect(model.model.requests.filter((r) => r.sessionId === room)).toEqual([]) // not even a title call

    // Members spoke from their own Sessions, which DSH Web hides (archived), apart from their own chats.
    const group: any = Object.values(teamState().groups).find((g: any) => g.name === 'Crew')
    const memberSessions = Object.values(group.memberSessions) as string[]
    expect(memberSessions).toHaveLength(2)
    expect(memberSessions).not.toContain(ada)
    expect(memberSessions).not.toContain(main)
    for (const sid of memberSessions) expect(model.model.requests.some((r) => r.sessionId === sid)).toBe(true)
    const workspaces = await api(web.url, 'workspace.list', {})
    for (const sid of memberSessions) expect(workspaces.archivedSessionIds).toContain(sid)
  })

  it("message_bot reaches the other Bot's own chat and its answer comes back to the sender", async () => {
    // Ada is made by the person on the team page's route (the Main Bot making her is the test above).
    const created = await fetch(`${web.url}/bot-team/api/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', role: 'Reviewer' }),
    })
    expect(created.status).toBe(201)
    const main = await sessionTitled('Main')
    const ada = await sessionTitled('Ada')
    await api(web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'ask Ada, please' }] })
    const adaLog = await until(ada, (evs) => texts(evs).includes('Ada answers: 4'), "Ada's answer")
    const asked = adaLog.find((e) => e.type === 'user/message' && JSON.stringify(e.data.content).includes('What is 2+2?'))
    expect(asked.data.source).toMatchObject({ kind: 'plugin', plugin: 'bot-team', fromName: 'Main' })
    const mainLog = await until(
      main,
      (evs) => evs.some((e) => e.type === 'user/message' && JSON.stringify(e.data.content).includes('Ada answers: 4')),
      'the reply',
    )
    expect(mainLog.filter((e) => e.type === 'user/message' && JSON.stringify(e.data.content).includes('Ada answers: 4'))).toHaveLength(1)
    // A delivery is marked delivered once its log line is flushed, a moment after it shows in history.
    const deliveredKinds = () =>
      teamState()
        .deliveries.filter((d: any) => d.status === 'delivered')
        .map((d: any) => d.kind)
    await expect.poll(deliveredKinds, { timeout: 10_000 }).toEqual(expect.arrayContaining(['message', 'reply']))
  })
})

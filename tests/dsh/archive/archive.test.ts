// botArchive on the real DSH core, in-process: scripted Bot chats are archived from their Session
// logs and read back through read_own_chat (the tool, and the service method the tool calls).
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { SessionId } from '@deepseek-ai/dsh-session'
import { disposedAfterEach, runTurn, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce, team, toolResults, user, userPrompt } from '../delivery/helpers.ts'
import { roomLog, say, settle } from '../rooms/helpers.ts'
import { from } from '../delivery/helpers.ts'

const track = disposedAfterEach()

const CHECKLIST = `Please remember the blue heron deployment checklist: ${Array.from({ length: 40 }, (_, i) => `step ${i + 1} verify replica ${i + 1}`).join('; ')}. End of checklist.`
const ANSWER = 'Answer: the staging server listens on port 8443 behind nginx.'
const CHINESE = `${'我们今天讨论了很多事情，大家都提出了自己的看法。'.repeat(6)}最后决定会话日志采用全文检索方案来支持搜索，部署窗口改到周四晚上。${'其他事项下次再议。'.repeat(4)}`

const said = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')

/** Ada's model: answers by what she was told; `SEARCH {json}` calls read_own_chat with that json. */
function ada(req: RecordedRequest): Reply {
  const results = lastToolResults(req)
  if (results.length) return { text: results[0]!.name === 'read_own_chat' ? 'searched' : 'There are two Bots on the team: Main and Ada.' }
  const text = said(req)
  if (text.startsWith('SEARCH ')) return { toolCalls: [{ name: 'read_own_chat', args: JSON.parse(text.slice(7)) }] }
  if (text.includes('who is on the team')) return { toolCalls: [{ name: 'list_bots', args: {} }] }
  if (text.includes('[Message from Bot Main]')) return { text: 'Noted the deployment window for Thursday evening.' }
  if (text.includes('会话日志')) return { text: '好的，记下了。' }
  return { text: ANSWER }
}

async function start(opts: { home?: string; writer?: 'never' } = {}): Promise<DshHost> {
  const scripts = { mock: { fallback: { text: 'ok' } }, ada: { fallback: ada }, bob: { fallback: { text: 'The purple elephant sleeps in the garage.' } } }
  if (opts.writer) return track(await startTeamHost(scripts, { home: opts.home!, writer: opts.writer }))
  return track(await team(scripts, opts))
}

/** A team where Ada has a chat of several turns: user text, a long message, a tool call, a Bot's message, Chinese. */
async function withChat() {
  const host = await start()
  const roster = host.ctx.botRoster
  const bot = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
  const agent = await roster.agentOf(bot.id)
  for (const text of [CHECKLIST, 'who is on the team?', CHINESE]) {
    userPrompt(agent, text)
    await quiesce(host)
  }
  await host.ctx.botDelivery.send(
    { kind: 'bot', sessionId: roster.bots()[0]!.sessionParts.at(-1)!.sessionId },
    { to: bot.id, kind: 'message', body: 'The deployment window moved to Thursday evening.' },
  )
  await quiesce(host)
  await host.ctx.botArchive.caughtUp()
  const sid = roster.bot(bot.id)!.sessionParts[0]!.sessionId
  const read = (args: unknown) => host.ctx.botArchive.readOwnChat(sid, args)
  return { host, bot, agent, sid, read }
}

/** The anchor and text of the result lines (`[part N #seq · MM-DD HH:mm] …`). */
function hits(answer: string): { anchor: string; text: string }[] {
  return answer.split('\n').flatMap((line) => {
    const m = /^\[(part \d+ #\d+) · \d{4}-\d\d-\d\d \d\d:\d\d\] (.*)$/.exec(line)
    return m ? [{ anchor: m[1]!, text: m[2]! }] : []
  })
}

describe('botArchive (in-process DSH)', () => {
  it('finds every kind of line by a quoted phrase from it, and around returns the anchored message whole', async () => {
    const { read } = await withChat()
    const phrases: [string, RegExp][] = [
      ['blue heron deployment checklist', /^User: Please remember the blue heron/], // the user's message
      ['staging server listens on port 8443', /^You: Answer: the staging server/], // the Bot's answer
      ['tool call list_bots', /^\[tool call\] list_bots/], // a tool call, one line
      ['tool result list_bots', /^\[tool result\] list_bots: /], // its result, one line
      ['deployment window moved to Thursday', /^\[Message from Bot Main\]/], // another Bot's message, with its header
      ['Noted the deployment window', /^You: Noted the deployment window/],
    ]
    for (const [phrase, shape] of phrases) {
      const found = hits(await read({ query: `"${phrase}"` }))
      expect(found.length, phrase).toBeGreaterThan(0)
      expect(
        found.some((h) => shape.test(h.text)),
        `${phrase}: ${JSON.stringify(found)}`,
      ).toBe(true)
    }
    // The checklist is longer than a search line shows; around shows it whole.
    const [checklist] = hits(await read({ query: '"blue heron"' }))
    expect(checklist!.text.length).toBeLessThan(CHECKLIST.length)
    const around = await read({ around: checklist!.anchor })
    expect(around).toContain(`${checklist!.anchor.replace(/^part 1 /, 'part 1 ')}`)
    expect(around).toContain(CHECKLIST)
    expect(around).toContain(ANSWER) // a line after it
  })

  it('finds a four-character phrase inside a long Chinese message, and a two-character term', async () => {
    const { read } = await withChat()
    for (const term of ['全文检索', '部署', '会话日志采用', '周']) {
      const found = hits(await read({ query: term }))
      expect(
        found.some((h) => h.text.includes('User: ') && h.text.includes(term)),
        term,
      ).toBe(true)
    }
    expect(await read({ query: '检索全文' })).toMatch(/^Nothing found/) // a substring, not a bag of characters
  })

  it('reads hostile queries as data: results or a plain "nothing found", never an FTS5 error', async () => {
    const { read } = await withChat()
    const hostile = [
      '"',
      '*',
      'NEAR(',
      'NEAR(heron checklist, 2)',
      'heron OR nginx',
      '-x',
      'body:heron',
      '^heron',
      '"unbalanced heron',
      'heron AND',
      '(',
      ')',
      '""',
      '*"*',
      'x'.repeat(5000),
      `${'heron '.repeat(900)}`,
    ]
    for (const query of hostile) {
      const answer = await read({ query })
      expect(answer, query.slice(0, 40)).toMatch(/line\(s\) of your own chat|^Nothing found|^No line of your own chat has all|no words or characters/)
      expect(answer).not.toMatch(/fts5|syntax error|SQLITE|unterminated|no such column/i)
    }
    // "a OR b" is three words: no line has all, the ones with most of them are shown and it says so.
    expect(await read({ query: 'heron OR nginx' })).toMatch(/^No line of your own chat has all of "heron", "OR", "nginx"\. The lines with the most/)
    expect(await read({ query: 'x'.repeat(5000) })).toContain('the query was cut to its first 300 characters')
  })

  it("answers through the tool from the Bot's turn without showing that turn's own lines", async () => {
    const { host, agent } = await withChat()
    userPrompt(agent, `SEARCH ${JSON.stringify({ query: 'heron' })}`)
    await quiesce(host)
    const answer = toolResults(agent, 'read_own_chat').at(-1)!
    expect(hits(answer).some((h) => h.text.startsWith('User: Please remember the blue heron'))).toBe(true)
    expect(answer).not.toContain('SEARCH') // the asking turn's user line is not a result
    expect(answer).not.toContain('read_own_chat') // nor its tool call
  })

  it("keeps each Bot to its own chat; a member searches a room's history only for its own rooms", async () => {
    const { host, bot, read } = await withChat()
    const roster = host.ctx.botRoster
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const carl = await roster.create(user, { name: 'Carl', model: 'mock/bob' })
    userPrompt(await roster.agentOf(bob.id), 'where does the purple elephant sleep?')
    await quiesce(host)
    await host.ctx.botArchive.caughtUp()
    const bobSid = roster.bot(bob.id)!.sessionParts[0]!.sessionId
    expect(hits(await host.ctx.botArchive.readOwnChat(bobSid, { query: 'purple elephant' })).length).toBeGreaterThan(0)
    expect(await read({ query: 'purple elephant' })).toMatch(/^Nothing found in your own chat/)
    expect(await host.ctx.botArchive.readOwnChat(bobSid, { query: 'heron' })).toMatch(/^Nothing found in your own chat/)
    // A plain DSH Session is not a Bot: refused.
    const plain = await runTurn(host, 'hello')
    await expect(host.ctx.botArchive.readOwnChat(String(plain.id), {})).rejects.toThrow(/not a Bot|Bot/)

    const group = await host.ctx.botRooms.createGroup(user, { name: 'Ann', members: ['Ada', 'Bob'] })
    await say(host, 'Ann', 'The quarterly roadmap review is on Monday.')
    await settle(host, 'Ann')
    const asAda = from(host, bot.id)
    expect(await host.ctx.botArchive.searchRoom(group, 'roadmap review')).toMatch(
      /line\(s\) of group Ann[\s\S]*\[room #\d+ · [^\]]+\] User: The quarterly roadmap review/,
    )
    // the same search through read_group_chat's query, for a member; an outsider is refused there too
    expect(await host.ctx.botRooms.readChat(asAda, 'Ann', 30, 'roadmap review')).toMatch(/\[room #\d+ · [^\]]+\] User: The quarterly roadmap review/)
    await expect(host.ctx.botRooms.readChat(from(host, carl.id), 'Ann', 30, 'roadmap')).rejects.toThrow(/not a member/)

    // From her group Session, Ada reads her own chat (not the room), and the room is told.
    const member = await host.ctx.botRooms.memberAgent(group.id, bot.id)
    expect(hits(await host.ctx.botArchive.readOwnChat(String(member.id), { query: 'heron' })).length).toBeGreaterThan(0)
    await settle(host, 'Ann')
    expect(roomLog(host, 'Ann')).toContain('Ada searched for "heron" in its own chat.')
  })

  it('rebuilds from the Session logs when archive.sqlite is deleted while DSH runs, finding the same lines', async () => {
    const { host, read } = await withChat()
    const before = await read({ query: 'deployment' })
    expect(hits(before).length).toBeGreaterThan(2)
    const path = join(host.home, 'bot', 'archive.sqlite')
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    expect(await read({ query: 'deployment' })).toBe(before)
    expect(host.ctx.botArchive.status).toMatchObject({ driver: 'better-sqlite3', writer: true })
    expect(host.ctx.botArchive.status.lines).toBeGreaterThan(5)
    // the rebuilt index is private like every team file, whatever the umask (WAL files take its mode)
    for (const f of [path, `${path}-wal`]) if (existsSync(f)) expect(statSync(f).mode & 0o777).toBe(0o600)
  })

  it('after a restart with the index deleted, rebuilds from the persisted logs of cold Sessions; a follower only reads', async () => {
    const first = await withChat()
    const before = await first.read({ query: 'deployment' })
    const home = first.host.home
    await first.host.ctx.fiber.dispose()
    const path = join(home, 'bot', 'archive.sqlite')
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    const second = await start({ home })
    expect(second.ctx.agents.get(SessionId(first.sid))).toBeUndefined() // Ada's chat is cold: read through DSH's persistence
    expect(await second.ctx.botArchive.readOwnChat(first.sid, { query: 'deployment' })).toBe(before)
    await second.ctx.botArchive.caughtUp()
    const lines = second.ctx.botArchive.status.lines
    expect(second.ctx.botArchive.status.logProblems).toBe(0) // DSH's reader gives contiguous seqs (packed chunks unpacked)

    const follower = await start({ home, writer: 'never' })
    expect(follower.ctx.botStore.mode).not.toBe('writer')
    const read = await follower.ctx.botArchive.readOwnChat(first.sid, { query: 'deployment' })
    expect(read).toContain(before)
    expect(read).toContain('This DSH process does not write the team, so it does not keep the archive current')
    expect(follower.ctx.botArchive.status).toMatchObject({ writer: false, lines })
  })

  it('a search during a long catch-up answers from what is indexed and says the index is catching up', async () => {
    const { host, read } = await withChat()
    const complete = await read({ query: 'deployment' })
    const path = join(host.home, 'bot', 'archive.sqlite')
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    host.ctx.botArchive.setLimits({ searchBudgetMs: 0, sliceEvents: 2 })
    const early = await read({ query: 'deployment' })
    expect(early).toContain('The archive is still catching up')
    expect(hits(early).length).toBeLessThan(hits(complete).length)
    expect(host.ctx.botArchive.status).toMatchObject({ rebuilding: true })
    expect(host.ctx.botArchive.status.catchingUp).toBeGreaterThan(0)
    await host.ctx.botArchive.caughtUp()
    expect(host.ctx.botArchive.status).toMatchObject({ rebuilding: false, catchingUp: 0 })
    expect(await read({ query: 'deployment' })).toBe(complete)
    expect(() => host.ctx.botArchive.setLimits({ sliceEvents: 0 })).toThrow()
  })

  it('reads the latest lines with no argument, says there is no note for a part, and refuses bad arguments', async () => {
    const { read } = await withChat()
    const latest = await read({})
    expect(latest).toMatch(/^The latest \d+ line\(s\) of your own chat/)
    expect(hits(latest).at(-1)!.text).toBe('You: Noted the deployment window for Thursday evening.')
    expect(await read({ part: 1 })).toMatch(/Part 1 is your current chat/)
    expect(await read({ part: 7 })).toMatch(/There is no part 7/)
    await expect(read({ query: 'a', part: 1 })).rejects.toThrow(/one of query, around or part/)
    await expect(read({ around: 'yesterday' })).resolves.toMatch(/^Refused: "around" takes an anchor/)
    await expect(read({ colour: 'red' })).rejects.toThrow(/colour/)
  })
})

// botMemory on the real DSH core, in-process: tools on Bot Sessions, files and journal, caps,
// the secret-like refusal, rights, the frozen section per part (also across a restart), archive.
import { readFileSync, statSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Script } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import { toolResults } from '../delivery/helpers.ts'
import { startCompactingTeamHost } from '../context-compaction/helpers.ts'
import { bots, say, settle, team as roomsTeam } from '../rooms/helpers.ts'
import { from } from '../delivery/helpers.ts'
import type * as botTeam from '../../../src/index.ts'

const track = disposedAfterEach()
const team = async (script: Script = { fallback: { text: 'ok' } }, opts: TeamHostOptions = {}) => track(await startTeamHost(script, opts))
const user = { kind: 'user' } as const

const memoryDir = (host: DshHost) => join(host.home, 'bot', 'memory')
const journal = (host: DshHost) => {
  const file = join(memoryDir(host), 'journal.jsonl')
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : []
}
const mainBot = (host: DshHost) => host.ctx.botRoster.bots().find((b) => b.main)!
const memorySection = (system: string) => system.slice(system.indexOf('# Your long-term memory'))

describe('botMemory (in-process DSH)', () => {
  it('remember from a Bot turn writes a 0600 MEMORY.md entry with metadata and one journal line; recall finds it in the same turn', async () => {
    const host = await team({
      steps: [
        { toolCalls: [{ name: 'remember', args: { text: 'The user prefers tabs over spaces' } }] },
        { toolCalls: [{ name: 'recall', args: { query: 'tabs' } }] },
        { text: 'noted' },
      ],
      fallback: { text: 'ok' },
    })
    const main = mainBot(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    await prompt(host, agent, 'I prefer tabs, remember that')
    const [saved, recalled] = toolResults(agent)
    expect(saved).toMatch(/^Saved in your memory\. It shows .* next conversation part; recall finds it now\./)
    expect(recalled).toMatch(/\[your MEMORY\.md\] The user prefers tabs over spaces \(added \d{4}-\d{2}-\d{2}\)/)
    const file = join(memoryDir(host), 'bots', main.id, 'MEMORY.md')
    expect(readFileSync(file, 'utf8')).toMatch(/^# Main's memory\n- The user prefers tabs over spaces <!-- added: \d{4}-\d{2}-\d{2}; source: part 1 -->\n$/)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(journal(host)).toEqual([
      expect.objectContaining({
        op: 'add',
        scope: `bot:${main.id}`,
        file: `bots/${main.id}/MEMORY.md`,
        actor: main.id,
        after: 'The user prefers tabs over spaces',
      }),
    ])
  })

  it('the memory section is frozen for the part: unchanged after remember, while a Session started later shows the entry', async () => {
    const host = await team()
    const main = mainBot(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    await prompt(host, agent, 'one')
    await host.ctx.botMemory.remember(from(host, main.id), { text: 'Deploys happen on Fridays', team: true })
    await prompt(host, agent, 'two')
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'hi')
    const [first, second, toAda] = host.adapter.model.loopRequests()
    expect(memorySection(second!.system)).toBe(memorySection(first!.system))
    expect(first!.system).not.toContain('Deploys happen on Fridays')
    expect(memorySection(toAda!.system)).toContain('## Team memory\n- Deploys happen on Fridays')
    expect(host.ctx.botMemory.recall(from(host, main.id), 'fridays')).toContain('[team MEMORY.md] Deploys happen on Fridays')
  })

  it('a checkpoint renews the frozen section: the request after it shows memory written before it, the one before did not', async () => {
    const host = track(await startCompactingTeamHost({ fallback: { text: `Done. ${'I read the module and ran the tests again. '.repeat(40)}` } }))
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    for (let i = 0; i < 4; i++) await prompt(host, agent, `Step ${i}: ${'keep going with the parser port '.repeat(8)}`)
    await host.ctx.botMemory.remember(from(host, ada.id), { text: 'The staging host is stg-04' })
    await prompt(host, agent, 'before the checkpoint')
    expect(await host.ctx.botCompaction.checkpoint(String(agent.id))).toEqual({ ok: true })
    await prompt(host, agent, 'after the checkpoint')
    const requests = host.adapter.model.loopRequests().filter((r) => r.sessionId === String(agent.id))
    const [beforeCheckpoint, afterCheckpoint] = requests.slice(-2)
    expect(memorySection(beforeCheckpoint!.system)).not.toContain('stg-04')
    expect(memorySection(afterCheckpoint!.system)).toContain('## Your memory\n- The staging host is stg-04')
    // persisted: what a restart would render for this part is the renewed section
    expect(host.ctx.botMemory.frozenSection(String(agent.id))).toContain('- The staging host is stg-04')
  })

  it('a restart renders the same frozen bytes for the same part, not the memory written since', async () => {
    const first = await team()
    const home = first.home
    const main = mainBot(first)
    await first.ctx.botMemory.remember(from(first, main.id), { text: 'Answer in English', team: true })
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(first, await first.ctx.botRoster.agentOf(ada.id), 'one')
    await first.ctx.botMemory.remember(from(first, main.id), { text: 'Keep answers short', team: true })
    const before = memorySection(first.adapter.model.loopRequests()[0]!.system)
    await first.ctx.fiber.dispose()
    const second = await team({ fallback: { text: 'ok' } }, { home })
    await prompt(second, await second.ctx.botRoster.agentOf(ada.id), 'two')
    const after = memorySection(second.adapter.model.loopRequests()[0]!.system)
    expect(after).toBe(before)
    expect(after).toContain('- Answer in English')
    expect(after).not.toContain('Keep answers short')
  })

  it('rotates journal.jsonl by size as the diagnostics log does: past journalMaxBytes it becomes journal.1.jsonl, and the current file stays under the bound', async () => {
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }, { config: { memory: { journalMaxBytes: 4096 } } as Partial<botTeam.Config> }))
    const actor = from(host, mainBot(host).id)
    for (let i = 0; i < 30; i++) {
      await host.ctx.botMemory.remember(actor, { text: `note number ${i} about the build` })
      await host.ctx.botMemory.forget(actor, { entry: `note number ${i}` })
    }
    const current = statSync(join(memoryDir(host), 'journal.jsonl')).size
    const rotated = statSync(join(memoryDir(host), 'journal.1.jsonl')).size
    expect(current).toBeLessThanOrEqual(4096)
    expect(rotated).toBeLessThanOrEqual(4096)
    expect(rotated).toBeGreaterThan(2048)
    expect(journal(host).at(-1)).toMatchObject({ op: 'remove' })
  })

  it('replace keeps the entry in place and forget removes it; each change is one journal line with before and after; hand-written lines survive', async () => {
    const host = await team()
    const main = mainBot(host)
    const actor = from(host, main.id)
    await host.ctx.botMemory.remember(actor, { text: 'uses npm' })
    await host.ctx.botMemory.remember(actor, { text: 'likes tea' })
    const file = join(memoryDir(host), 'bots', main.id, 'MEMORY.md')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(file, readFileSync(file, 'utf8') + 'A note I wrote by hand.\n')
    expect(await host.ctx.botMemory.remember(actor, { text: 'uses pnpm', replace: 'npm' })).toMatch(/^Replaced/)
    expect(await host.ctx.botMemory.remember(actor, { text: 'likes tea' })).toMatch(/Already in your memory\. Nothing changed/)
    expect(await host.ctx.botMemory.forget(actor, { entry: 'likes tea' })).toMatch(/^Removed/)
    const text = readFileSync(file, 'utf8')
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/ <!--.*-->$/, '')),
    ).toEqual(["# Main's memory", '- uses pnpm', 'A note I wrote by hand.'])
    expect(journal(host).map((j) => [j.op, j.before, j.after])).toEqual([
      ['add', undefined, 'uses npm'],
      ['add', undefined, 'likes tea'],
      ['replace', 'uses npm', 'uses pnpm'],
      ['remove', 'likes tea', undefined],
    ])
  })

  it('every cap, the total per scope included, refuses with what to do and changes nothing', async () => {
    const host = await team(undefined, {
      config: {
        memory: {
          limits: { entry: 40, memoryFile: 400, topicFile: 300, topics: 2, scopeTotal: 800 },
          review: { enabled: false, maxChanges: 4, maxTokens: 1024 },
        },
      },
    })
    const main = mainBot(host)
    const actor = from(host, main.id)
    const mem = host.ctx.botMemory
    const snapshot = () => JSON.stringify([mem.files.read(`bot:${main.id}`), journal(host).length])
    /** Add entries until one is refused; the refusal's message, after checking it changed nothing. */
    const fill = async (prefix: string, topic?: string): Promise<string> => {
      for (let i = 0; i < 50; i++) {
        const state = snapshot()
        try {
          await mem.remember(actor, { text: `${prefix} ${i} ${'y'.repeat(20)}`, ...(topic ? { topic } : {}) })
        } catch (error) {
          expect(snapshot()).toBe(state)
          expect(i).toBeGreaterThan(0)
          return (error as Error).message
        }
      }
      throw new Error('never refused')
    }
    const before = snapshot()
    await expect(mem.remember(actor, { text: 'x'.repeat(41) })).rejects.toThrow(/41 characters.*at most 40.*topic/)
    expect(snapshot()).toBe(before)
    expect(await fill('fact')).toMatch(/MEMORY\.md would be \d+ characters.*at most 400.*move details into a topic/)
    expect(await fill('detail', 'alpha')).toMatch(/topic "alpha" would be \d+ characters.*at most 300/)
    await mem.remember(actor, { text: 'one beta detail', topic: 'beta' })
    const withTwo = snapshot()
    await expect(mem.remember(actor, { text: 'one gamma detail', topic: 'gamma' })).rejects.toThrow(/already has 2 topics.*alpha, beta/)
    expect(snapshot()).toBe(withTwo)
    expect(await fill('beta', 'beta')).toMatch(/would hold \d+ characters in all.*at most 800.*Forget something first/)
  })

  it('refuses secret-like entries (EN and ZH) and ../ topics through the tool, changing nothing', async () => {
    const host = await team({
      steps: [
        { toolCalls: [{ name: 'remember', args: { text: 'the staging password is Xk92!mq' } }] },
        { toolCalls: [{ name: 'remember', args: { text: '我的银行卡号 6222 0212 3456 7890 123' } }] },
        { toolCalls: [{ name: 'remember', args: { text: 'a fact', topic: '../x' } }] },
        { toolCalls: [{ name: 'remember', args: { text: 'We use a password manager for shared logins' } }] },
        { text: 'done' },
      ],
      fallback: { text: 'ok' },
    })
    const agent = await host.ctx.botRoster.agentOf(mainBot(host).id)
    await prompt(host, agent, 'remember these')
    const results = toolResults(agent, 'remember')
    expect(results[0]).toMatch(/^Refused: not saved: it looks like a password\. Memory must not hold keys/)
    expect(results[1]).toMatch(/^Refused: not saved: it looks like a card or account number\./)
    expect(results[2]).toMatch(/^Refused: "..\/x" is not a usable topic name/)
    expect(results[3]).toMatch(/^Saved/)
    expect(journal(host)).toHaveLength(1)
    expect(existsSync(join(memoryDir(host), 'x.md'))).toBe(false)
  })

  it('a member cannot write team memory (its remember has no team argument; the service refuses it); a group admin can; a Main Bot edits another Bot only in a turn the user opened', async () => {
    const host = await team({
      steps: [{ toolCalls: [{ name: 'remember', args: { text: 'team fact from Bob', team: true } }] }, { text: 'done' }],
      fallback: { text: 'ok' },
    })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob' })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
    const bobAgent = await host.ctx.botRoster.agentOf(bob.id)
    await prompt(host, bobAgent, 'save a team fact')
    const offered = host.adapter.model
      .loopRequests()
      .at(-1)!
      .tools.find((t) => t.name === 'remember')!
    expect(Object.keys((offered.parameters as { properties: object }).properties)).not.toContain('team')
    // The undeclared argument never reaches the service: the entry is his own, and the answer says so.
    expect(toolResults(bobAgent, 'remember')[0]).toMatch(/^Saved in your memory/)
    expect(existsSync(join(memoryDir(host), 'team', 'MEMORY.md'))).toBe(false)
    await expect(host.ctx.botMemory.remember(from(host, bob.id), { text: 'team fact from Bob', team: true })).rejects.toThrow(/team memory/i)
    expect(await host.ctx.botMemory.remember(from(host, ada.id), { text: 'team fact from the admin', team: true })).toMatch(/^Saved in team memory/)
    // Outside a turn the user opened, a Main Bot may not write another Bot's memory.
    const main = mainBot(host)
    await expect(host.ctx.botMemory.remember(from(host, main.id), { text: 'Bob likes tests', bot: 'Bob' })).rejects.toThrow(/user/i)
    await expect(host.ctx.botMemory.remember(from(host, ada.id), { text: 'Bob likes tests', bot: 'Bob' })).rejects.toThrow()
    expect(await host.ctx.botMemory.remember(user, { text: 'Bob likes tests', bot: 'Bob' })).toMatch(/^Saved in Bob's memory/)
    expect(readFileSync(join(memoryDir(host), 'bots', bob.id, 'MEMORY.md'), 'utf8')).toContain('by: user')
  })

  it('a group Session gets the frozen memory section (read-only wording) and none of the memory tools', async () => {
    const host = track(await roomsTeam({ ada: { text: 'Ada here' }, bob: { text: 'Bob here' } }))
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botMemory.remember(user, { text: 'Ada reviews every PR', bot: 'Ada' })
    await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(host, 'Dev', 'hello')
    await settle(host, 'Dev')
    const req = host.adapter.model.loopRequests().find((r) => r.model === 'ada')!
    expect(host.ctx.botRoster.ownerOf(req.sessionId!)).toMatchObject({ kind: 'member', botId: ids.Ada })
    expect(memorySection(req.system)).toContain('your own chat keeps it')
    expect(memorySection(req.system)).toContain('- Ada reviews every PR')
    expect(req.toolNames).not.toEqual(expect.arrayContaining(['remember']))
    expect(req.toolNames).not.toContain('recall')
  })

  it('deleting a Bot archives its memory folder (kept, not erased) and journals it', async () => {
    const host = await team()
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await host.ctx.botMemory.remember(from(host, ada.id), { text: 'Ada reviews every PR' })
    await host.ctx.botRoster.delete(user, 'Ada', 'no longer needed')
    await host.ctx.botMemory.settled()
    expect(existsSync(join(memoryDir(host), 'bots', ada.id))).toBe(false)
    const [archived] = readdirSync(join(memoryDir(host), 'archive'))
    expect(archived).toMatch(new RegExp(`^${ada.id}-\\d{4}-`))
    expect(readFileSync(join(memoryDir(host), 'archive', archived!, 'MEMORY.md'), 'utf8')).toContain('Ada reviews every PR')
    expect(journal(host).at(-1)).toMatchObject({ op: 'archive', scope: `bot:${ada.id}`, file: `bots/${ada.id}`, actor: 'user', after: `archive/${archived}` })
  })
})

describe('end-of-turn memory review (in-process DSH)', () => {
  const reviewOn = {
    memory: {
      limits: { entry: 300, memoryFile: 4000, topicFile: 16000, topics: 40, scopeTotal: 64000 },
      review: { enabled: true, maxChanges: 4, maxTokens: 512 },
    },
  }
  /** A script whose review calls get `answers` in order and whose Bot turns answer "ok". */
  const reviewing = (answers: string[]): Script => {
    let n = 0
    return {
      review: () => ({ text: answers[n++] ?? '{"changes":[]}', usage: { input: 300, output: 40 } }),
      fallback: { text: 'ok', usage: { input: 5_000, output: 50 } },
    }
  }
  const reviewRequests = (host: DshHost) => host.adapter.model.requests.filter((r) => r.purpose === 'memory-review')

  it("is on by default: a turn with user text gets one review side call on the default model, answered apart from the Bot's steps", async () => {
    const host = await team({ steps: [{ text: 'first' }, { text: 'second' }], review: '{"changes":[{"op":"add","text":"The user likes short answers"}]}' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    await prompt(host, agent, 'I like short answers')
    await host.ctx.botMemory.settled()
    expect(reviewRequests(host).map((r) => `${r.provider}/${r.model}`)).toEqual(['mock/mock'])
    expect(host.adapter.model.loopRequests().some((r) => r.purpose !== undefined)).toBe(false)
    expect(host.ctx.botMemory.files.read(`bot:${ada.id}`).memory).toContain('- The user likes short answers')
    await prompt(host, agent, 'next')
    expect(host.adapter.model.loopRequests().map((r) => r.reply)).toEqual([{ text: 'first' }, { text: 'second' }])
  })

  it('applies valid proposals through the same caps and filter (a secret-like one dropped, a team add by a plain Bot kept as its own), journaled as auto, tokens counted apart', async () => {
    const host = await team(
      reviewing([
        JSON.stringify({
          changes: [
            { op: 'add', text: 'The user prefers tabs' },
            { op: 'add', text: 'the wifi password is sunshine42' },
            { op: 'add', text: 'Standups are at 9:30', team: true },
          ],
        }),
      ]),
      { config: reviewOn },
    )
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'I prefer tabs; the wifi password is sunshine42; standups are at 9:30')
    await host.ctx.botMemory.settled()
    const own = host.ctx.botMemory.files.read(`bot:${ada.id}`).memory
    expect(own).toContain('- The user prefers tabs')
    expect(own).toContain('- Standups are at 9:30')
    expect(own).not.toContain('sunshine42')
    expect(host.ctx.botMemory.files.read('team').memory).toBe('')
    expect(journal(host).map((j) => [j.op, j.auto, j.after])).toEqual([
      ['add', true, 'The user prefers tabs'],
      ['add', true, 'Standups are at 9:30'],
    ])
    const stats = host.ctx.botMemory.reviewStats()
    expect(stats).toMatchObject({ reviews: 1, calls: 1, applied: 2, dropped: 1, malformed: 0, inputTokens: 300, outputTokens: 40 })
    expect(
      reviewRequests(host)[0]!
        .messages.map((m) => JSON.stringify(m))
        .join(''),
    ).toContain('User: I prefer tabs')
  })

  it('ignores a malformed answer and reads the same lines again after the next turn; a turn without new user text makes no call', async () => {
    const host = await team(reviewing(['I think the user likes tabs!', '{"changes":[{"op":"add","text":"The user likes tabs"}]}']), { config: reviewOn })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    await prompt(host, agent, 'I like tabs')
    await host.ctx.botMemory.settled()
    expect(host.ctx.botMemory.reviewStats()).toMatchObject({ calls: 1, malformed: 1, applied: 0 })
    expect(journal(host)).toEqual([])
    await prompt(host, agent, 'thanks')
    await host.ctx.botMemory.settled()
    const second = reviewRequests(host)[1]!
      .messages.map((m) => JSON.stringify(m))
      .join('')
    expect(second).toContain('User: I like tabs')
    expect(second).toContain('User: thanks')
    expect(host.ctx.botMemory.files.read(`bot:${ada.id}`).memory).toContain('- The user likes tabs')
    // Nothing new from the user since: a turn another Bot starts is not reviewed with a model call.
    const calls = host.ctx.botMemory.reviewStats().calls
    agent.followup(
      (await import('@deepseek-ai/dsh-llm')).createUserMessage({
        content: [{ type: 'text', text: 'note from a plugin' }],
        source: { kind: 'plugin', plugin: 'x' } as never,
      }),
    )
    await agent.whenIdle()
    await host.ctx.botMemory.settled()
    expect(host.ctx.botMemory.reviewStats().calls).toBe(calls)
    expect(host.ctx.botMemory.files.readCursors()[`chat:${String(agent.id)}`]).toBe(agent.session.events.length)
  })
})

describe('end-of-turn memory review on a host without defaultModel (as a real install)', () => {
  // No plugin `defaultModel`: Bots without a model of their own run on DSH's own default model.
  const realInstall = { dshDefaultModel: 'mock/dsh-default' } as const
  const reviewRequests = (host: DshHost) => host.adapter.model.requests.filter((r) => r.purpose === 'memory-review')
  const reviewText = (host: DshHost, i: number) =>
    reviewRequests(host)
      [i]!.messages.map((m) => m.text)
      .join('\n')
  const reviewNotes = async (host: DshHost) =>
    (await host.ctx.botDiagnostics.read())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; message: string })
      .filter((l) => l.kind === 'memory-review')

  it("reviews the Main Bot's turn on DSH's default model: one review call to the route its turn was sent to, and the change is saved", async () => {
    const host = await team({ review: '{"changes":[{"op":"add","text":"The user likes short answers"}]}', fallback: { text: 'ok' } }, realInstall)
    const main = mainBot(host)
    expect(main.model).toBeUndefined()
    await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'I like short answers')
    await host.ctx.botMemory.settled()
    expect(host.adapter.model.loopRequests().map((r) => `${r.provider}/${r.model}`)).toEqual(['mock/dsh-default'])
    expect(reviewRequests(host).map((r) => `${r.provider}/${r.model}`)).toEqual(['mock/dsh-default'])
    expect(host.ctx.botMemory.files.read(`bot:${main.id}`).memory).toContain('- The user likes short answers')
  })

  it('a review whose call fails says why once in diagnostics (two failures, one line) and its lines are read again by the next review', async () => {
    let n = 0
    const host = await team(
      {
        review: () => (n++ < 2 ? { fail: 'server-error', message: 'review model down' } : '{"changes":[{"op":"add","text":"The user likes tabs"}]}'),
        fallback: { text: 'ok' },
      },
      realInstall,
    )
    const main = mainBot(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    for (const line of ['I like tabs', 'really, tabs', 'thanks']) {
      await prompt(host, agent, line)
      await host.ctx.botMemory.settled()
    }
    const notes = await reviewNotes(host)
    expect(notes).toHaveLength(1)
    expect(notes[0]!.message).toMatch(/^Main's turns are not reviewed for memory: the review call to mock\/dsh-default failed: .*review model down/)
    expect(host.ctx.botMemory.reviewStats()).toMatchObject({ calls: 3, unavailable: 2, applied: 1 })
    expect(reviewText(host, 2)).toContain('User: I like tabs')
    expect(reviewText(host, 2)).toContain('User: thanks')
    expect(host.ctx.botMemory.files.read(`bot:${main.id}`).memory).toContain('- The user likes tabs')
  })

  it('the first review after five unreviewed turns reads only the user lines of the last three turns', async () => {
    let n = 0
    const host = await team({ review: () => (n++ < 5 ? { fail: 'server-error' } : '{"changes":[]}'), fallback: { text: 'ok' } }, realInstall)
    const main = mainBot(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    for (let i = 1; i <= 6; i++) {
      await prompt(host, agent, `line ${i}`)
      await host.ctx.botMemory.settled()
    }
    const sixth = reviewText(host, 5)
    expect(['line 1', 'line 2', 'line 3'].filter((l) => sixth.includes(`User: ${l}`))).toEqual([])
    expect(['line 4', 'line 5', 'line 6'].filter((l) => sixth.includes(`User: ${l}`))).toEqual(['line 4', 'line 5', 'line 6'])
  })
})

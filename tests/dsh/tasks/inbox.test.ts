// The person's inbox on real DSH in-process: ask_person end to end (the answer is a turn on the
// asking chain, never the person's), and approvals that wait — a Bot-started turn's call that needs
// DSH's approval waits in the inbox across a restart, a shell cannot answer it, an allow runs one
// new turn whose one-shot grant opens exactly that call once, and a deny or the deadline tells the Bot;
// reviews the person makes land in the inbox on submit.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { callKey } from '../../../src/core/call-key.ts'
import { deliverySource, readSource } from '../../../src/core/sources.ts'
import { APPROVAL_ARGS_MAX } from '../../../src/core/text-limits.ts'
import { laterCallNote } from '../../../src/roster/unattended.ts'
import { disposedAfterEach, registerApprovalTool, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { BROWSER_HEADERS, captureTerminal, pairBrowser, startWebTeamHost, type WebTeamHost } from '../../support/web-host.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'
import { FakeClock } from '../operations/fake-clock.ts'
import { toolResults } from '../delivery/helpers.ts'
import { calm, sourcedTexts, submits, taskTeam, taskWhere, user } from './helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()
const SECRET = 'sk-live-7f3a9c2e5b8d4f1a'

/** Assistant steps since the turn's last real user message (0: the turn's first request). */
function stepInTurn(req: RecordedRequest): number {
  let n = 0
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i]!
    if (m.role === 'user' && m.text.length > 0 && m.runtimeContext !== true) return n
    if (m.role === 'assistant') n++
  }
  return n
}

/** A message from another Bot into `agent`'s chat: a Bot-started turn on `chain`. */
function fromBot(agent: Agent, text: string, chain = { hop: 1, budget: 'budget:from-eve', mode: 'workspace-write' as const }) {
  agent.followup(
    createUserMessage({
      content: [{ type: 'text', text }],
      source: deliverySource({ id: `delivery-${text.length}`, from: 'bot-9', kind: 'message' }, 'Eve', chain),
    }),
  )
}

/** Opening messages of turns in a Session whose source is the person's answer. */
function answerTurns(agent: Agent) {
  return (agent.session.events as any[])
    .filter((e) => e.type === 'user/message' && readSource(e.data.source)?.type === 'answer')
    .map((e) => readSource(e.data.source)!)
}

describe('ask_person', () => {
  it('a question from a Bot-started turn waits in the inbox; the answer reaches the asking chat as a turn on the asking chain (not a turn of the person), and the model reads it', async () => {
    const ada = (req: RecordedRequest): Reply => {
      const said = lastUserText(req) ?? ''
      if (said.includes('The user answered')) return { text: 'Thanks, going with it.' }
      if (said.includes('pick a licence') && stepInTurn(req) === 0)
        return { toolCalls: [{ name: 'ask_person', args: { question: 'Which licence?', choices: ['MIT', 'Apache-2.0'], deadline_hours: 2 } }] }
      return { text: 'Asked; waiting.' }
    }
    const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: ada } }))
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'please pick a licence')
    const asked = await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    expect(asked).toMatchObject({
      assignee: { kind: 'user' },
      creator: { kind: 'bot', botId: bot.id },
      chain: { hop: 1, budget: 'budget:from-eve', mode: 'workspace-write' },
      ask: { kind: 'question', botId: bot.id, sessionId: String(agent.id), question: 'Which licence?', choices: ['MIT', 'Apache-2.0'] },
    })
    expect(Date.parse(asked.ask!.deadline) - Date.parse(asked.createdAt)).toBe(2 * 3_600_000)
    expect(host.ctx.botTasks.inbox().map((t) => t.id)).toEqual(['task-1'])
    expect(toolResults(agent, 'ask_person')).toEqual([expect.stringMatching(/^Asked as task-1; it waits for the user until /)])

    // A Bot cannot answer it, and an unpaired person neither; the paired person (in process) can.
    await expect(host.ctx.botTasks.answer({ kind: 'bot', sessionId: String(agent.id) }, 'task-1', { text: 'MIT' })).rejects.toThrow(/Only the person answers/)
    await expect(host.ctx.botTasks.answer({ kind: 'user', paired: false }, 'task-1', { text: 'MIT' })).rejects.toThrow(/paired team page/)
    await expect(host.ctx.botTasks.answer(user, 'task-1', { choice: 5 })).rejects.toThrow(/Choice 5 is not one of/)
    const answered = await host.ctx.botTasks.answer(user, 'task-1', { choice: 0, text: 'keep it short' })
    expect(answered).toMatchObject({ status: 'done', ask: { answer: { verdict: 'answered', choice: 0, text: '"MIT" — keep it short' } } })
    await calm(host)
    expect(host.ctx.botTasks.inbox()).toEqual([])
    // One answer turn, carrying the asking chain; the turn is a chain's, not the person's.
    expect(answerTurns(agent)).toEqual([
      expect.objectContaining({ type: 'answer', taskId: 'task-1', hop: 1, budget: 'budget:from-eve', mode: 'workspace-write' }),
    ])
    expect(answerTurns(agent)[0]).not.toHaveProperty('grant')
    expect(host.ctx.botRoster.turnOf(String(agent.id))).toMatchObject({ origin: { kind: 'chain', chain: { hop: 1, budget: 'budget:from-eve' } } })
    const last = host.adapter.model
      .loopRequests()
      .filter((r) => r.sessionId === String(agent.id))
      .at(-1)!
    expect(lastUserText(last)).toMatch(/^The user answered your question task-1 \("Which licence\?"\): "MIT" — keep it short$/)
    // Answered once: a second answer is refused and changes nothing.
    await expect(host.ctx.botTasks.answer(user, 'task-1', { text: 'Apache' })).rejects.toThrow(/is done, so it cannot be answered/)
  })

  it('an answer draws on the budget opened when the Bot asked, and never opens a new one: a budget dropped while the question waited stays gone', async () => {
    const ada = (req: RecordedRequest): Reply =>
      (lastUserText(req) ?? '').includes('pick a licence') && stepInTurn(req) === 0
        ? { toolCalls: [{ name: 'ask_person', args: { question: 'Which licence?' } }] }
        : { text: 'ok' }
    const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: ada } }))
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'please pick a licence')
    await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    expect(host.ctx.botStore.state.budgets.map((b) => b.id)).toContain('budget:from-eve')
    // Newer budgets pushed it out (the team keeps the newest only) while the question waited.
    await host.ctx.botStore.update((s) => {
      s.budgets = s.budgets.filter((b) => b.id !== 'budget:from-eve')
    })
    await host.ctx.botTasks.answer(user, 'task-1', { text: 'MIT' })
    await calm(host)
    expect(answerTurns(agent)).toHaveLength(1)
    expect(host.ctx.botStore.state.budgets.map((b) => b.id)).not.toContain('budget:from-eve')
  })

  it('a question nobody answers by its deadline is cancelled and the asking Bot is told (on the plugin clock)', async () => {
    const clock = new FakeClock('2026-12-01T10:00:00.000Z')
    const ada = (req: RecordedRequest): Reply =>
      (lastUserText(req) ?? '').includes('ask them') && stepInTurn(req) === 0
        ? { toolCalls: [{ name: 'ask_person', args: { question: 'Ship today?', deadline_hours: 1 } }] }
        : { text: 'ok' }
    const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: ada } }, { clock }))
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'ask them')
    await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    clock.advance(3_600_000)
    const expired = await taskWhere(host, 'task-1', (t) => t.status === 'cancelled')
    expect(expired.ask!.answer).toMatchObject({ verdict: 'expired' })
    await calm(host)
    const last = host.adapter.model
      .loopRequests()
      .filter((r) => r.sessionId === String(agent.id))
      .at(-1)!
    expect(lastUserText(last)).toMatch(/^Your question task-1 to the user \("Ship today\?"\) got no answer by its deadline/)
  })
})

describe('a bounded inbox', () => {
  let sent = 0
  /** A message from another Bot (a Bot-started turn), each with its own delivery id. */
  const wake = (agent: Agent, text: string) =>
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text }],
        source: deliverySource({ id: `delivery-bound-${++sent}`, from: 'bot-9', kind: 'message' }, 'Eve', { hop: 1, budget: 'budget:from-eve' }),
      }),
    )
  /** A Bot that asks on "ask N": N questions in one step; otherwise says ok. */
  const asker = (req: RecordedRequest): Reply => {
    const m = /^ask (\d+) (\w+)/.exec(lastUserText(req) ?? '')
    if (!m || stepInTurn(req) !== 0) return { text: 'ok' }
    return { toolCalls: Array.from({ length: Number(m[1]) }, (_, i) => ({ name: 'ask_person', args: { question: `${m[2]} ${i}?`, deadline_hours: 720 } })) }
  }

  it("holds one question per turn and 5 per Bot across its chats, keeps Bots' asks 50 below the open-task limit, and never refuses the person's plans or answers because of them", async () => {
    const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: asker }, bob: { fallback: asker } }))
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    const tasks = host.ctx.botTasks
    // seven questions in one turn: the first waits, the other six are refused
    const adaChat = await host.ctx.botRoster.agentOf(ada.id)
    wake(adaChat, 'ask 7 first')
    await calm(host)
    expect(tasks.inbox().map((t) => t.ask!.question)).toEqual(['first 0?'])
    const results = toolResults(adaChat, 'ask_person')
    expect(results[0]).toMatch(/^Asked as task-1;/)
    expect(results.slice(1)).toEqual(
      Array(6).fill('Refused: This turn already asked the user (task-1); a Bot asks at most one question per turn. Nothing new was asked.'),
    )
    // one per turn up to 5 waiting, counted across the Bot's chats: a new part of its chat does not reset it
    for (const word of ['second', 'third', 'fourth']) {
      wake(adaChat, `ask 1 ${word}`)
      await calm(host)
    }
    await host.ctx.botRoster.openOwnChat(ada.id)
    const part2 = await host.ctx.botRoster.agentOf(ada.id)
    expect(String(part2.id)).not.toBe(String(adaChat.id))
    wake(part2, 'ask 1 fifth')
    await calm(host)
    wake(part2, 'ask 1 sixth')
    await calm(host)
    expect(tasks.inbox().map((t) => t.ask!.question)).toEqual(['first 0?', 'second 0?', 'third 0?', 'fourth 0?', 'fifth 0?'])
    expect(toolResults(part2, 'ask_person').at(-1)).toMatch(/^Refused: This Bot already has 5 questions waiting for the user \(from all its chats\)/)
    // the person's own tasks (assigned to nobody) bring the team to 449 open; Bots' asks stop at 450
    const planOf = (n: number, from: number) => ({ tasks: Array.from({ length: n }, (_, i) => ({ title: `Chore ${from + i}`, brief: 'x' })) })
    for (let at = 0; at < 444; at += 50) await tasks.plan(user, planOf(Math.min(50, 444 - at), at))
    expect(tasks.board.openCount).toBe(449)
    const bobChat = await host.ctx.botRoster.agentOf(bob.id)
    wake(bobChat, 'ask 1 bobs')
    await calm(host)
    wake(bobChat, 'ask 1 again')
    await calm(host)
    expect(tasks.board.openCount).toBe(450)
    expect(toolResults(bobChat, 'ask_person').at(-1)).toBe(
      "Refused: The team has 450 open tasks; Bots' questions and approvals may bring it to at most 450 (the last 50 are the user's). Nothing was asked.",
    )
    // the person plans the last 50 and more: Bots' 6 questions are not counted against the person's plans
    await tasks.plan(user, planOf(50, 444))
    await tasks.plan(user, planOf(6, 494))
    expect(tasks.board.openCount).toBe(506)
    await expect(tasks.plan(user, planOf(1, 500))).rejects.toThrow(
      /^The team has 500 open tasks \(the Bots' questions and approvals not counted\) and at most 500 may be open; this plan adds 1\./,
    )
    // and answers
    await expect(tasks.answer(user, 'task-1', { text: 'yes' })).resolves.toMatchObject({ status: 'done' })
  })
})

/** Ada's model for the approval tests: the call that needs approval, then the same tool again in that turn; in a grant turn, `grantTurn`. */
function approvalModel(grantTurn: (step: number) => Reply) {
  return (req: RecordedRequest): Reply => {
    const said = lastUserText(req) ?? ''
    const step = stepInTurn(req)
    if (said.startsWith('The user allowed')) return grantTurn(step)
    if (said.includes('write the file')) {
      if (step === 0) return { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt', description: 'the first try' } }] }
      if (step === 1) return { toolCalls: [{ name: 'needs_approval', args: { path: 'b.txt' } }] }
    }
    return { text: `done (${lastToolResults(req).length} results)` }
  }
}

async function approvalTeam(script: (req: RecordedRequest) => Reply, home: string, reason?: string): Promise<{ web: WebTeamHost; terminal: string[] }> {
  const terminal = captureTerminal()
  const web = await startWebTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: script } }, { home, permissions: true })
  track(web.host)
  registerApprovalTool(web.host, reason)
  return { web, terminal }
}

describe('approvals that wait', () => {
  it('survives a restart in the inbox; a shell cannot answer it (403); an allow runs exactly one new turn whose grant opens that call once, and not twice', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-approval-restart-'))
    homes.push(home)
    const grantSteps = (step: number): Reply => {
      // the same call (reworded free text): granted; then the same call again: the grant is spent
      if (step === 0) return { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt', description: 'reworded, as allowed' } }] }
      if (step === 1) return { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt' } }] }
      return { text: 'finished' }
    }
    const a = await approvalTeam(approvalModel(grantSteps), home)
    const bot = await a.web.host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await a.web.host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'please write the file')
    const waiting = await taskWhere(a.web.host, 'task-1', (t) => t.status === 'ready')
    await calm(a.web.host)
    expect(waiting).toMatchObject({
      assignee: { kind: 'user' },
      ask: {
        kind: 'approval',
        botId: bot.id,
        question: 'write outside the workspace',
        approval: { tool: 'needs_approval', args: '{"path":"a.txt","description":"the first try"}', key: callKey('needs_approval', { path: 'a.txt' }) },
      },
    })
    // the call is refused in that turn, and the later call of the same tool too (no second approval)
    expect(toolResults(agent, 'needs_approval')).toEqual([
      expect.stringMatching(/^Not run yet: .* as task-1 in their inbox/),
      `Error: ${laterCallNote('needs_approval')}`,
    ])
    expect(a.web.host.ctx.botTasks.inbox().map((t) => t.id)).toEqual(['task-1'])
    const sessionId = String(agent.id)
    await a.web.host.dispose()

    // DSH restarts: the approval still waits in the inbox.
    const b = await approvalTeam(approvalModel(grantSteps), home)
    expect((await b.web.send('GET', '/inbox')).body).toMatchObject({
      count: 1,
      items: [{ id: 'task-1', inbox: { kind: 'approval' }, ask: { kind: 'approval' } }],
    })
    // the sidebar's badge, and Ada's chat shows it waits for the person
    const team = (await b.web.send('GET', '/team')).body
    expect(team.tasksWaiting).toBe(1)
    expect(team.bots.find((x: any) => x.name === 'Ada').asksWaiting).toBe(1)
    // A shell (no pairing) cannot answer it: 403, nothing changed.
    const shell = await b.web.send('POST', '/inbox/task-1/allow', {})
    expect(shell.status).toBe(403)
    expect(b.web.host.ctx.botTasks.board.get('task-1')!.status).toBe('ready')
    const token = await pairBrowser(b.web, b.terminal, BROWSER_HEADERS)
    const turnsBefore = b.web.host.adapter.model.loopRequests().length
    const allowed = await b.web.send('POST', '/inbox/task-1/allow', {}, { ...BROWSER_HEADERS, [PAIRING_HEADER]: token })
    expect(allowed).toMatchObject({
      status: 200,
      body: { task: { id: 'task-1', status: 'done', ask: { answer: { verdict: 'allowed' }, grant: { used: false } } } },
    })
    const used = await taskWhere(b.web.host, 'task-1', (t) => t.ask?.grant?.used === true)
    await calm(b.web.host)
    const after = b.web.host.ctx.agents.list().find((x) => String(x.id) === sessionId)!
    // exactly one new turn, opened by the answer with the grant
    const answers = answerTurns(after)
    expect(answers).toEqual([
      expect.objectContaining({ taskId: 'task-1', grant: { tool: 'needs_approval', key: callKey('needs_approval', { path: 'a.txt' }) } }),
    ])
    // the grant turn runs on the asking chain, not as a turn of the person (preset raises stay refused there)
    expect(b.web.host.ctx.botRoster.turnOf(sessionId)).toMatchObject({
      origin: { kind: 'chain', chain: { hop: 1, budget: 'budget:from-eve' } },
      grant: { taskId: 'task-1' },
    })
    const newTurns = (after.session.events as any[]).filter((e) => e.type === 'turn/start').length
    expect(newTurns).toBe(2)
    expect(b.web.host.adapter.model.loopRequests().length - turnsBefore).toBe(3)
    // the granted call ran (allowed-once), once; the repeat was not granted (it waits anew)
    const outcomes = (after.session.events as any[]).filter((e) => e.type === 'approval/decided').map((e) => e.data.outcome)
    expect(outcomes).toEqual(['rejected', 'allowed-once', 'rejected'])
    expect(toolResults(after, 'needs_approval').slice(2)).toEqual(['outcome=allowed-once', expect.stringMatching(/^Not run yet: .* as task-2 in their inbox/)])
    expect(used.ask!.grant).toMatchObject({ used: true })
    expect(b.web.host.ctx.botTasks.inbox().map((t) => t.id)).toEqual(['task-2'])
  })

  it('a grant does not open the same tool with other arguments; the arguments and the reason shown are masked; a deny tells the Bot and runs nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-approval-other-'))
    homes.push(home)
    const { web } = await approvalTeam(
      approvalModel((step) =>
        step === 0 ? { toolCalls: [{ name: 'needs_approval', args: { path: `other-${SECRET}.txt`, description: 'the first try' } }] } : { text: 'ok' },
      ),
      home,
      `write other-${SECRET}.txt`,
    )
    const host: DshHost = web.host
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botSecrets.set('API_TOKEN', { value: SECRET, scope: 'all' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'please write the file')
    await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    await host.ctx.botTasks.decideApproval(user, 'task-1', 'allowed')
    await taskWhere(host, 'task-2', (t) => t.status === 'ready')
    await calm(host)
    // other arguments: not granted; the grant stays unused, and that call waits as task-2
    expect(host.ctx.botTasks.board.get('task-1')!.ask!.grant).toEqual({ used: false })
    const shown = host.ctx.botTasks.board.get('task-2')!.ask!.approval!.args
    expect(shown).toMatch(/^\{"path":"other-.+\.txt","description":"the first try"\}$/)
    expect(shown).not.toContain(SECRET)
    // Why the call asks comes with it too: masked like its arguments.
    const question = host.ctx.botTasks.board.get('task-2')!.ask!.question
    expect(question).toMatch(/^write other-.+\.txt$/)
    expect(question).not.toContain(SECRET)
    expect((agent.session.events as any[]).filter((e) => e.type === 'approval/decided').map((e) => e.data.outcome)).toEqual(['rejected', 'rejected'])
    const denied = await host.ctx.botTasks.decideApproval(user, 'task-2', 'denied', 'not that file')
    expect(denied).toMatchObject({ status: 'done', ask: { answer: { verdict: 'denied', text: 'not that file' } } })
    await calm(host)
    const last = host.adapter.model
      .loopRequests()
      .filter((r) => r.sessionId === String(agent.id))
      .at(-1)!
    expect(lastUserText(last)).toMatch(
      /^The user denied needs_approval \(call .*\) with \{"path":"other-.*\} \(they said: not that file\)\. Do not try it again/,
    )
    expect(answerTurns(agent).at(-1)).not.toHaveProperty('grant')
  })

  it('a grant covers exactly the call the person saw: the same call with a `__proto__` argument added is not granted, it waits anew', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-approval-proto-'))
    homes.push(home)
    // JSON.parse makes `__proto__` an own key, as a model's arguments arrive.
    const withProto = JSON.parse('{"path":"a.txt","__proto__":{"path":"/etc/passwd"}}')
    const { web } = await approvalTeam(
      approvalModel((step) => (step === 0 ? { toolCalls: [{ name: 'needs_approval', args: withProto }] } : { text: 'ok' })),
      home,
    )
    const host = web.host
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'please write the file')
    await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    await host.ctx.botTasks.decideApproval(user, 'task-1', 'allowed')
    const again = await taskWhere(host, 'task-2', (t) => t.status === 'ready')
    await calm(host)
    expect(again.ask!.approval!.args).toBe('{"path":"a.txt","__proto__":{"path":"/etc/passwd"}}')
    expect(again.ask!.approval!.key).not.toBe(callKey('needs_approval', { path: 'a.txt' }))
    expect((agent.session.events as any[]).filter((e) => e.type === 'approval/decided').map((e) => e.data.outcome)).toEqual(['rejected', 'rejected'])
    expect(host.ctx.botTasks.board.get('task-1')!.ask!.grant).toEqual({ used: false })
  })

  it('at most 5 approvals wait per Bot: the sixth call is refused without a new one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-approval-cap-'))
    homes.push(home)
    const { web } = await approvalTeam(
      (req) =>
        (lastUserText(req) ?? '').startsWith('write') && stepInTurn(req) === 0
          ? { toolCalls: [{ name: 'needs_approval', args: { path: lastUserText(req)! } }] }
          : { text: 'ok' },
      home,
    )
    const host = web.host
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    for (let i = 1; i <= 6; i++) {
      fromBot(agent, `write ${i}`)
      await calm(host)
    }
    expect(host.ctx.botTasks.inbox().map((t) => t.ask!.approval!.args)).toEqual([1, 2, 3, 4, 5].map((i) => `{"path":"write ${i}"}`))
    expect(toolResults(agent, 'needs_approval').at(-1)).toMatch(/^Not approved: .*already has 5 approvals waiting/)
  })

  it('a call whose arguments are too long to show whole never waits: no approval in the inbox, the Bot is told why', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-approval-long-'))
    homes.push(home)
    // A harmless-looking start and a tail the card could not show: the grant would cover the tail.
    const path = `${'a'.repeat(APPROVAL_ARGS_MAX)}; the hidden rest`
    const { web } = await approvalTeam((req) => (stepInTurn(req) === 0 ? { toolCalls: [{ name: 'needs_approval', args: { path } }] } : { text: 'ok' }), home)
    const host = web.host
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    fromBot(agent, 'write the long one')
    await calm(host)
    expect(host.ctx.botTasks.inbox()).toEqual([])
    expect(toolResults(agent, 'needs_approval').at(-1)).toMatch(/cannot wait for the person's approval: its arguments are \d+ characters, more than the 4000/)
  })
})

describe('a grant holds only where it was asked', () => {
  /** Ada: in a task Session, the call that needs approval, then `then`; in her own chat, the allowed call made again. */
  const taskAsks =
    (then: Reply) =>
    (req: RecordedRequest): Reply => {
      const said = lastUserText(req) ?? ''
      if (said.startsWith('The user allowed'))
        return stepInTurn(req) === 0 ? { toolCalls: [{ name: 'needs_approval', args: { path: 't.txt' } }] } : { text: 'ok' }
      if (lastToolResults(req).some((r) => r.name === 'submit_task')) return { text: 'submitted' }
      if (offersTool(req, 'submit_task')) return stepInTurn(req) === 0 ? { toolCalls: [{ name: 'needs_approval', args: { path: 't.txt' } }] } : then
      return { text: 'ok' }
    }
  /** Every approval decided in the Bot's Sessions (own chat parts and task Sessions, closed ones too), from their logs. */
  const outcomes = async (host: DshHost, botId: string) => {
    const out: string[] = []
    for (const id of host.ctx.botRoster.sessionsOf(botId)) {
      const { events } = await host.ctx.sessionPersistence.inspect(id as never)
      for (const e of events as any[]) if (e.type === 'approval/decided') out.push(e.data.outcome)
    }
    return out
  }

  it('an approval asked in a task attempt records that attempt; once the task is cancelled an allow is refused with the reason, and nothing runs', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-grant-attempt-'))
    homes.push(home)
    const { web } = await approvalTeam(taskAsks({ toolCalls: [{ name: 'submit_task', args: { note: 'asked' } }] }), home)
    const host = web.host
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Write t', brief: 'Write t.txt.', assignee: 'Ada' }] })
    const asked = await taskWhere(host, 'task-2', (t) => t.status === 'ready')
    await taskWhere(host, 'task-1', (t) => t.status === 'review')
    await calm(host)
    await host.ctx.botTasks.cancel(user, 'task-1', 'not needed')
    await expect(host.ctx.botTasks.decideApproval(user, 'task-2', 'allowed')).rejects.toThrow(
      /^task-2 can no longer be allowed: it was asked in attempt 1 of task-1, which is over \(the task is cancelled\)\. .*nothing was allowed\. Deny it/,
    )
    const taskSession = host.ctx.botTasks.board.get('task-1')!.sessionId!
    expect(asked.ask).toMatchObject({ kind: 'approval', sessionId: taskSession, attempt: { taskId: 'task-1', n: 1 }, turn: expect.any(Number) })
    expect(host.ctx.botTasks.board.get('task-2')).toMatchObject({ status: 'ready' })
    await host.ctx.botTasks.decideApproval(user, 'task-2', 'denied')
    await calm(host)
    expect(await outcomes(host, ada.id)).toEqual(['rejected'])
  })

  it('an allow given while the attempt worked is cancelled when the attempt is over before its turn: the Bot is told, no call runs anywhere else', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-grant-late-'))
    homes.push(home)
    // The attempt's turn stays open (a stalled model) until the task is cancelled.
    const { web } = await approvalTeam(taskAsks({ fail: 'stall' }), home)
    const host = web.host
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Write t', brief: 'Write t.txt.', assignee: 'Ada' }] })
    await taskWhere(host, 'task-2', (t) => t.status === 'ready')
    // Held work: the allow's turn waits while the task is cancelled.
    await host.ctx.botPause.pause('user')
    const allowed = await host.ctx.botTasks.decideApproval(user, 'task-2', 'allowed')
    expect(allowed.ask!.grant).toEqual({ used: false })
    await host.ctx.botTasks.cancel(user, 'task-1', 'not needed')
    await host.ctx.botPause.resume()
    const cancelled = await taskWhere(host, 'task-2', (t) => t.ask?.grant?.cancelled !== undefined)
    await calm(host)
    expect(cancelled.ask!.grant).toMatchObject({
      used: false,
      cancelled: { reason: expect.stringMatching(/^it was asked in attempt 1 of task-1, which is over/) },
    })
    const own = await host.ctx.botRoster.agentOf(ada.id)
    expect(answerTurns(own)).toEqual([expect.not.objectContaining({ grant: expect.anything() })])
    expect(sourcedTexts(own, 'answer')).toEqual([expect.stringMatching(/^The user's allow of needs_approval .* no longer holds: it was asked in attempt 1/)])
    expect(await outcomes(host, ada.id)).toEqual(['rejected'])
  })

  it("an approval asked in a Bot's Session in a group cannot be allowed: the answer's turn would run it in the Bot's own chat", async () => {
    const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }))
    for (const name of ['Ada', 'Bob']) await host.ctx.botRoster.create(user, { name })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
    const ada = host.ctx.botRoster.find('Ada')!
    const member = String((await host.ctx.botRooms.memberAgent(host.ctx.botRooms.group('G')!.id, ada.id)).id)
    expect(host.ctx.botRoster.ownerOf(member)).toMatchObject({ kind: 'member', botId: ada.id })
    // the guard's call, as a member Session's unattended turn makes it
    const said = await host.ctx.botTasks.approvalWaits({
      sessionId: member,
      botId: ada.id,
      tool: 'bash',
      callId: 'call-1',
      args: '{}',
      key: callKey('bash', {}),
      reason: 'x',
    })
    expect(said).toMatch(/waits for the user's approval as task-1/)
    await expect(host.ctx.botTasks.decideApproval(user, 'task-1', 'allowed')).rejects.toThrow(
      /^task-1 can no longer be allowed: it was asked in Ada's Session in a group, and an allowed call runs only where it was asked\./,
    )
    await expect(host.ctx.botTasks.decideApproval(user, 'task-1', 'denied')).resolves.toMatchObject({ status: 'done' })
  })

  it("an approval asked in a Bot's own chat cannot be allowed once the chat moved to a new part", async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-grant-part-'))
    homes.push(home)
    const { web } = await approvalTeam(
      approvalModel((step) => (step === 0 ? { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt' } }] } : { text: 'ok' })),
      home,
    )
    const host = web.host
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    fromBot(await host.ctx.botRoster.agentOf(bot.id), 'please write the file')
    await taskWhere(host, 'task-1', (t) => t.status === 'ready')
    await calm(host)
    await host.ctx.botRoster.openOwnChat(bot.id)
    await expect(host.ctx.botTasks.decideApproval(user, 'task-1', 'allowed')).rejects.toThrow(
      /^task-1 can no longer be allowed: Ada's chat moved to a new part since it asked\./,
    )
    await calm(host)
    expect(await outcomes(host, bot.id)).toEqual(['rejected'])
  })
})

describe('reviews the person makes', () => {
  it('a task whose acceptance says the user reviews lands in the inbox on submit; no Bot may review it, the person does', async () => {
    const { host, ids } = await taskTeam(['Ada'], { Ada: submits })
    track(host)
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const mainChat = await host.ctx.botRoster.agentOf(main.id)
    const { ids: planned } = await host.ctx.botTasks.plan(user, {
      tasks: [
        { title: 'Draft', brief: 'Write the draft.', acceptance: 'The user reviews the wording.', assignee: 'Ada' },
        { title: 'Notes', brief: 'Write notes.', assignee: 'Ada', reviewer: 'user' },
      ],
    })
    const submitted = await taskWhere(host, planned[0]!, (t) => t.status === 'review')
    await taskWhere(host, planned[1]!, (t) => t.status === 'review')
    await calm(host)
    expect(submitted).toMatchObject({ reviewer: 'user', assignee: { kind: 'bot', botId: ids.Ada } })
    expect(host.ctx.botTasks.inbox().map((t) => [t.id, t.status])).toEqual([
      [planned[0], 'review'],
      [planned[1], 'review'],
    ])
    await expect(host.ctx.botTasks.review({ kind: 'bot', sessionId: String(mainChat.id) }, planned[0], 'accept')).rejects.toThrow(/The user reviews this task/)
    await expect(host.ctx.botTasks.review({ kind: 'bot', sessionId: String(mainChat.id) }, planned[1], 'accept')).rejects.toThrow(/The user reviews this task/)
    await host.ctx.botTasks.review(user, planned[0], 'accept')
    expect(host.ctx.botTasks.board.get(planned[0]!)!.status).toBe('done')
    expect(host.ctx.botTasks.inbox().map((t) => t.id)).toEqual([planned[1]])
  })
})

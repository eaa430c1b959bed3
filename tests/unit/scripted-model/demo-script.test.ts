// The offline demo script: introduction, list_bots call on a team question, summary of the result.
import { describe, expect, it } from 'vitest'
import { ScriptedModel } from '../../../scripts/scripted-model/index.ts'
import type { RecordedMessage, RecordedRequest } from '../../../scripts/scripted-model/index.ts'
import demoScript, { mentionsTeam } from '../../../scripts/demo-script.ts'

const RUNTIME: RecordedMessage = { role: 'user', text: 'Current runtime context.\n\ncwd: /x', runtimeContext: true }
const req = (messages: RecordedMessage[], tools: string[] = ['list_bots']): RecordedRequest => ({
  via: 'server',
  index: 0,
  model: 'deepseek-v4-flash',
  system: 'You are a bot.',
  messages,
  tools: tools.map((name) => ({ name, description: '', parameters: {} })),
  toolNames: tools,
})
const text = (r: unknown) => (r as { text?: string }).text ?? ''

describe('demo script', () => {
  it('introduces itself as the offline demo model and says no DEEPSEEK_API_KEY is set', () => {
    const m = new ScriptedModel(demoScript)
    const reply = m.respond(req([{ role: 'user', text: 'hello' }, RUNTIME]))
    expect(text(reply)).toMatch(/offline demo model/i)
    expect(text(reply)).toContain('No DEEPSEEK_API_KEY is set')
    expect('toolCalls' in reply).toBe(false)
  })

  it('calls list_bots when the user asks about the team (prompt not last), then summarises the result', () => {
    const m = new ScriptedModel(demoScript)
    const ask = m.respond(req([{ role: 'user', text: 'Who is on my team?' }, RUNTIME]))
    expect(ask).toMatchObject({ toolCalls: [{ name: 'list_bots', args: {} }] })
    const result = 'The team has 2 Bots:\n- Chief (id b1; lead, Main Bot)\n- Ada (id b2; coder)'
    const summary = m.respond(
      req([
        { role: 'user', text: 'Who is on my team?' },
        RUNTIME,
        { role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'list_bots', arguments: '{}', args: {} }] },
        { role: 'tool', text: result, toolCallId: 'c', toolName: 'list_bots' },
      ]),
    )
    expect(text(summary)).toContain('found 2 Bots')
    expect(text(summary)).toContain('- Ada (id b2; coder)')
    expect(text(summary)).toContain('DEEPSEEK_API_KEY')
  })

  it('does not call list_bots when the tool is not offered or the question is not about bots', () => {
    const m = new ScriptedModel(demoScript)
    expect('toolCalls' in m.respond(req([{ role: 'user', text: 'list my bots' }], []))).toBe(false)
    expect('toolCalls' in m.respond(req([{ role: 'user', text: 'what is 2+2?' }]))).toBe(false)
    expect(mentionsTeam('show the Bots')).toBe(true)
    expect(mentionsTeam('robotics')).toBe(false)
  })

  it('titles sessions without consuming anything', () => {
    const m = new ScriptedModel(demoScript)
    expect(text(m.respond({ ...req([{ role: 'user', text: 'hi there' }]), purpose: 'session-title' }))).toBe('Offline demo: hi there')
  })
})

describe('demo script: a plan that moves across the board', () => {
  const SYSTEM = "You are Main, the team's lead, a long-lived Bot on a team of Bots in DeepSeek Harness (id bot-main1)."
  it('answers "make a plan to …" with plan_tasks: three tasks in a row, each assigned to the planning Bot', () => {
    const m = new ScriptedModel(demoScript)
    const reply = m.respond({ ...req([{ role: 'user', text: 'make a plan to write a launch note' }, RUNTIME], ['plan_tasks']), system: SYSTEM })
    const call = (reply as { toolCalls?: { name: string; args: { tasks: Record<string, unknown>[] } }[] }).toolCalls?.[0]
    expect(call?.name).toBe('plan_tasks')
    expect(call?.args.tasks.map((t) => [t.key, t.assignee, t.blocked_by])).toEqual([
      ['outline', 'bot-main1', undefined],
      ['draft', 'bot-main1', ['outline']],
      ['check', 'bot-main1', ['draft']],
    ])
    expect(call?.args.tasks[0]?.title).toBe('Outline: write a launch note')
  })

  it('hands the task in with submit_task in a task Session, then ends the turn', () => {
    const m = new ScriptedModel(demoScript)
    const brief = 'Task task-1: Outline: write a launch note'
    const first = m.respond(req([{ role: 'user', text: brief }, RUNTIME], ['submit_task', 'update_task']))
    expect(first).toMatchObject({ toolCalls: [{ name: 'submit_task' }] })
    const after = m.respond(
      req(
        [
          { role: 'user', text: brief },
          RUNTIME,
          { role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'submit_task', arguments: '{}', args: {} }] },
          { role: 'tool', text: 'Submitted task-1 for review (attempt 1).', toolCallId: 'c', toolName: 'submit_task' },
        ],
        ['submit_task', 'update_task'],
      ),
    )
    expect(text(after)).toBe('Handed in for review.')
    expect('toolCalls' in after).toBe(false)
  })
})

describe('demo script: one question before a plan', () => {
  const call = (r: unknown) => (r as { toolCalls?: { name: string; args: Record<string, unknown> }[] }).toolCalls?.[0]
  const TEAM = ['manage_bot', 'message_bot', 'plan_tasks']
  it('has Main create Scout and message it on "make a plan to …" when it may, instead of planning at once', () => {
    const m = new ScriptedModel(demoScript)
    const first = call(m.respond(req([{ role: 'user', text: 'make a plan to write a launch note' }, RUNTIME], TEAM)))
    expect(first).toMatchObject({ name: 'manage_bot', args: { action: 'create', name: 'Scout' } })
    const second = call(
      m.respond(
        req(
          [
            { role: 'user', text: 'make a plan to write a launch note' },
            { role: 'assistant', text: '' },
            { role: 'tool', text: 'Created Scout.', toolName: 'manage_bot' },
          ],
          TEAM,
        ),
      ),
    )
    expect(second).toMatchObject({ name: 'message_bot', args: { to: 'Scout', reply_to: 'user' } })
    expect(second?.args.message).toBe('Ask the person one question before the plan to write a launch note, then pass the answer on to Main.')
  })

  it('in Chinese: Scout asks with two choices, passes the answer on, and Main plans with the answer in each brief', () => {
    const m = new ScriptedModel(demoScript)
    const ask = call(
      m.respond(
        req(
          [{ role: 'user', text: '[Message from Bot Main]\n\nAsk the person one question before the plan to 写发布说明, then pass the answer on to Main.' }],
          ['ask_person', 'message_bot'],
        ),
      ),
    )
    expect(ask).toEqual({ name: 'ask_person', args: { question: '在规划「写发布说明」之前：用什么语气？', choices: ['亲切', '正式'] } })
    const pass = call(
      m.respond(
        req(
          [{ role: 'user', text: 'The user answered your question task-1 ("在规划「写发布说明」之前：用什么语气？"): "亲切"' }],
          ['ask_person', 'message_bot'],
        ),
      ),
    )
    expect(pass).toMatchObject({ name: 'message_bot', args: { to: 'Main', message: 'The person answered: "亲切". Plan it now: 写发布说明' } })
    const plan = call(m.respond(req([{ role: 'user', text: `[Message from Bot Scout]\n\n${pass?.args.message}` }], TEAM)))
    expect(plan?.name).toBe('plan_tasks')
    expect((plan!.args.tasks as { brief: string }[]).map((t) => t.brief)).toEqual([
      '为「写发布说明」列一个三点提纲。用户的回答："亲切"。',
      '按提纲为「写发布说明」写一段初稿。用户的回答："亲切"。',
      '检查「写发布说明」的初稿并列出修改。用户的回答："亲切"。',
    ])
  })
})

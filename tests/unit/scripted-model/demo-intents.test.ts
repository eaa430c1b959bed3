// The offline demo's plain requests, English and Chinese, each to one team tool call.
import { describe, expect, it } from 'vitest'
import { canDo, isChinese, understand } from '../../../scripts/demo-intents.ts'

describe('understand', () => {
  it('reads the English requests', () => {
    expect(understand('create a Bot named Writer who writes drafts')).toEqual({
      tool: 'manage_bot',
      args: { action: 'create', name: 'Writer', role: 'writes drafts', instructions: 'You writes drafts.' },
    })
    expect(understand('Create a bot called Ada')).toEqual({ tool: 'manage_bot', args: { action: 'create', name: 'Ada' } })
    expect(understand('ask Writer to draft a haiku')).toEqual({
      tool: 'message_bot',
      args: { to: 'Writer', message: 'Please draft a haiku', reply_to: 'user' },
    })
    expect(understand('create a group with Writer and Main')).toEqual({
      tool: 'manage_group',
      args: { action: 'create', name: 'Writer-Main', members: ['Writer', 'Main'] },
    })
    expect(understand('create a group named Crew with Ada, Bea and Cy')).toEqual({
      tool: 'manage_group',
      args: { action: 'create', name: 'Crew', members: ['Ada', 'Bea', 'Cy'] },
    })
    expect(understand('post in Crew: hello all')).toEqual({ tool: 'post_to_group', args: { group: 'Crew', text: 'hello all' } })
    expect(understand('stop Writer')).toEqual({ tool: 'stop_bot', args: { to: 'Writer', reason: 'The person asked to stop.' } })
  })

  it('reads the Chinese requests', () => {
    expect(understand('创建一个叫 Writer 的 Bot，负责写作')).toMatchObject({ tool: 'manage_bot', args: { action: 'create', name: 'Writer', role: '写作' } })
    expect(understand('让Writer写一首诗')).toEqual({ tool: 'message_bot', args: { to: 'Writer', message: '请写一首诗', reply_to: 'user' } })
    expect(understand('创建群组，成员有 Writer 和 Main')).toEqual({
      tool: 'manage_group',
      args: { action: 'create', name: 'Writer-Main', members: ['Writer', 'Main'] },
    })
    expect(understand('在 Crew 群里发：大家好')).toEqual({ tool: 'post_to_group', args: { group: 'Crew', text: '大家好' } })
    expect(understand('停止 Writer')).toMatchObject({ tool: 'stop_bot', args: { to: 'Writer' } })
  })

  it("understands nothing else, and then says what it can do in the person's language", () => {
    expect(understand('what is the weather?')).toBeUndefined()
    expect(understand('今天天气怎么样')).toBeUndefined()
    expect(isChinese('你好')).toBe(true)
    expect(canDo(true)).toContain('创建一个叫 Writer 的 Bot')
    expect(canDo(false)).toContain('create a Bot named Writer')
  })
})

describe('understand: plans', () => {
  it('reads "make a plan to …" in English and Chinese as a three-task plan_tasks call', () => {
    const en = understand('Make a plan to write a launch note.')
    expect(en?.tool).toBe('plan_tasks')
    expect(en?.tool === 'plan_tasks' && en.args.tasks.map((t) => t.title)).toEqual([
      'Outline: write a launch note',
      'Draft: write a launch note',
      'Check: write a launch note',
    ])
    const zh = understand('制定一个计划：写发布说明')
    expect(zh?.tool === 'plan_tasks' && zh.args.tasks.map((t) => t.title)).toEqual(['列提纲：写发布说明', '写初稿：写发布说明', '检查：写发布说明'])
  })
})

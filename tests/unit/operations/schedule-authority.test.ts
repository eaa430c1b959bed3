import { describe, expect, it } from 'vitest'
import { decideSchedule } from '../../../src/operations/schedules/authority.ts'

const main = { kind: 'main-bot', botId: 'bot-1' } as const
const bot = { kind: 'bot', botId: 'bot-2' } as const

describe('decideSchedule (pure, through decide)', () => {
  it('the person may schedule anything', () => {
    expect(decideSchedule({ kind: 'user' }, { botId: 'bot-2', userAsked: false }).allowed).toBe(true)
    expect(decideSchedule({ kind: 'user' }, { groupId: 'group-1', userAsked: false }).allowed).toBe(true)
  })

  it('a Bot only in a turn the user opened', () => {
    expect(decideSchedule(bot, { botId: 'bot-2', userAsked: true }).allowed).toBe(true)
    expect(decideSchedule(bot, { userAsked: true }).allowed).toBe(true)
    const refused = decideSchedule(bot, { botId: 'bot-2', userAsked: false })
    expect(refused).toMatchObject({ allowed: false })
    expect(!refused.allowed && refused.reason).toMatch(/only when the user asks/)
  })

  it('another Bot as for a message; a group only for Main Bots and its admin', () => {
    expect(decideSchedule(bot, { botId: 'bot-3', userAsked: true }).allowed).toBe(true)
    expect(decideSchedule(bot, { groupId: 'group-1', userAsked: true }).allowed).toBe(false)
    expect(decideSchedule(bot, { groupId: 'group-1', callerIsGroupAdmin: true, userAsked: true }).allowed).toBe(true)
    expect(decideSchedule(main, { groupId: 'group-1', userAsked: true }).allowed).toBe(true)
  })

  it('a plain DSH Session never', () => {
    expect(decideSchedule({ kind: 'non-bot-session' }, { userAsked: true }).allowed).toBe(false)
  })
})

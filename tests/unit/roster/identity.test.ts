// The identity and team sections (pure): the team section names a few Bots and groups and counts
// the rest, so it does not grow with the team; the line a Bot is told when its role changes.
import { describe, expect, it } from 'vitest'
import type { Role } from '../../../src/core/offer.ts'
import { identityText, roleChangeText, TEAM_LISTED, teamText } from '../../../src/roster/identity.ts'
import { emptyState, type TeamState } from '../../../src/store/schema.ts'
import { bot } from '../store/fixtures.ts'

const MAIN: Role = { main: true, groups: 'none', kind: 'own' }
const BOT: Role = { main: false, groups: 'none', kind: 'own' }

function team(bots: number, groups = 0): TeamState {
  const s = emptyState('1.0.0', new Date('2025-01-01T00:00:00.000Z'))
  for (let i = 1; i <= bots; i++) s.bots[`bot-${i}`] = bot(`bot-${i}`, { name: `Bot${i}`, role: 'Engineer', main: i === 1 })
  for (let g = 1; g <= groups; g++) {
    s.groups[`group-${g}`] = {
      id: `group-${g}`,
      name: `Group${g}`,
      members: ['bot-1', 'bot-2'],
      admin: g === 1 ? 'bot-2' : undefined,
      mode: 'admin',
      notice: '',
      memberSessions: {},
      createdAt: '2025-01-01T00:00:00.000Z',
    }
  }
  return s
}

describe('the team section', () => {
  it('names up to a few other Bots with role and Main Bot, and the groups with the admin', () => {
    expect(teamText(team(3, 1), 'bot-2', { main: false, groups: 'admin', kind: 'own' })).toBe(
      [
        'The team when this part started: Bot1 (Engineer, Main Bot), Bot3 (Engineer); your groups: Group1 (you admin it). list_bots shows it now.',
        'If a team tool refuses, tell the user why; do not work around it.',
      ].join('\n'),
    )
    expect(teamText(team(1), 'bot-1', MAIN)).toMatch(/^You are a Main Bot\. The team when this part started: no other Bots\./)
  })

  it(`counts beyond ${TEAM_LISTED} other Bots and groups, and stays within 1.5× its size at 1 Bot with 50 Bots`, () => {
    const big = teamText(team(50, 12), 'bot-1', MAIN)
    expect(big).toContain('49 other Bots (0 Main Bots); groups: 12.')
    expect(big).not.toContain('Bot7')
    const one = teamText(team(1), 'bot-1', MAIN)
    expect(big.length / one.length).toBeLessThanOrEqual(1.5)
    expect(teamText(team(50, 12), 'bot-1', MAIN)).toBe(big) // the same team gives the same bytes
  })

  it('lists for a non-Main Bot only the groups it is in', () => {
    expect(teamText(team(3, 2), 'bot-3', BOT)).not.toContain('Group')
    expect(teamText(team(3, 2), 'bot-2', { main: false, groups: 'member', kind: 'own' })).toContain('your groups: Group1 (you admin it), Group2.')
  })

  it('the identity holds who the Bot is and its instructions, not its role on the team', () => {
    const text = identityText(bot('bot-1', { name: 'Ada', role: 'Reviewer', main: true, instructions: 'Review PRs.' }))
    expect(text).toBe(
      "You are Ada, the team's Reviewer, a long-lived Bot on a team of Bots in DeepSeek Harness (id bot-1).\n\nYour instructions from the user:\nReview PRs.",
    )
  })
})

describe('the role change line', () => {
  it('says what changed and that the tools follow at the next part; nothing when nothing this Session depends on changed', () => {
    expect(roleChangeText(BOT, MAIN, BOT)).toBe('Team change: you are now a Main Bot. Your tools follow at your next part; until then a tool may refuse.')
    expect(roleChangeText(MAIN, BOT, BOT)).toBe('Team change: you are no longer a Main Bot. The tools of this part fit that again.')
    const member: Role = { main: false, groups: 'member', kind: 'member' }
    expect(roleChangeText(member, { ...member, main: true }, member)).toBeUndefined()
    expect(roleChangeText(member, { ...member, groups: 'admin' }, member)).toMatch(/^Team change: you are now this group's admin\./)
  })
})

// What each role is offered (pure): derived from the authority table in src/core/authority.ts,
// written out here independently of `decide`, for every role; the tools that serve those actions;
// the arguments only some roles may use.
import { describe, expect, it } from 'vitest'
import { TEAM_ACTIONS, type TeamAction } from '../../../src/core/authority.ts'
import { couldAllow, offerFor, ROLES, TEAM_TOOLS, type Role } from '../../../src/core/offer.ts'

const main = (r: Role) => r.main
const admin = (r: Role) => r.main || r.groups === 'admin'
const always = () => true

/** The authority table, read as "could this role ever be allowed it" (some target, some turn). */
const COULD: Record<TeamAction, (r: Role) => boolean> = {
  list_bots: always,
  list_models: always,
  create_bot: main,
  update_bot: main,
  delete_bot: main,
  message_bot: always,
  interrupt_bot: main,
  stop_bot: main,
  create_group: main,
  update_group: admin,
  delete_group: main,
  post_to_group: admin,
  read_group_chat: (r) => r.main || r.groups !== 'none',
  write_own_memory: always,
  write_team_memory: admin,
  read_own_chat: always,
  // Only Main Bots (and the person) plan, so only they are creators; any Bot can be an assignee.
  plan_tasks: main,
  claim_task: always,
  update_task: always,
  submit_task: always,
  review_task: main,
  cancel_task: main,
  reassign_task: main,
  // A Bot that is not a Main Bot asks the person through the inbox (a Main Bot's chat is where the person is); only the person answers.
  ask_person: (r) => !r.main,
  answer_task: () => false,
}

const key = (r: Role) => `${r.main ? 'Main' : 'Bot'}/${r.groups}/${r.kind}`

describe('the offer, derived from decide', () => {
  it('covers every role: Main or not × standing in groups × Session kind', () => {
    expect(ROLES.map(key)).toEqual([
      'Main/none/own',
      'Main/member/own',
      'Main/admin/own',
      'Bot/none/own',
      'Bot/member/own',
      'Bot/admin/own',
      'Main/member/member',
      'Main/admin/member',
      'Bot/member/member',
      'Bot/admin/member',
      'Main/none/task',
      'Main/member/task',
      'Main/admin/task',
      'Bot/none/task',
      'Bot/member/task',
      'Bot/admin/task',
    ])
  })

  for (const role of ROLES) {
    it(`${key(role)}: the actions are those the authority table could allow, the tools those that serve them`, () => {
      const offer = offerFor(role)
      const actions = TEAM_ACTIONS.filter((a) => COULD[a](role))
      expect([...offer.actions].sort()).toEqual([...actions].sort())
      const tools = Object.entries(TEAM_TOOLS)
        .filter(([, t]) => t.kinds.includes(role.kind) && (t.actions.length === 0 || t.actions.some((a) => actions.includes(a))))
        .map(([name]) => name)
        .sort()
      expect(offer.tools).toEqual(tools)
    })
  }

  it('names the tools of the own-chat and member roles (what each role pays for)', () => {
    const own = 'add_schedule ask_person list_bots list_schedules message_bot read_own_chat recall remember remove_schedule request_secret'.split(' ')
    const notMain = (tools: readonly string[]) => tools.filter((t) => t !== 'ask_person')
    const tools = (r: Omit<Role, 'kind'>, kind: Role['kind'] = 'own') => offerFor({ ...r, kind }).tools
    expect(tools({ main: false, groups: 'none' })).toEqual(own)
    expect(tools({ main: false, groups: 'member' })).toEqual([...own, 'read_group_chat'].sort())
    expect(tools({ main: false, groups: 'admin' })).toEqual([...own, 'manage_group', 'post_to_group', 'read_group_chat'].sort())
    const ledger = ['cancel_task', 'list_tasks', 'plan_tasks', 'review_task']
    expect(tools({ main: true, groups: 'none' })).toEqual(
      [...notMain(own), ...ledger, 'manage_bot', 'manage_group', 'post_to_group', 'read_group_chat', 'stop_bot'].sort(),
    )
    for (const r of ROLES.filter((x) => x.kind === 'member')) expect(offerFor(r).tools).toEqual(['read_group_chat'])
    // a task Session: its own task's tools, whatever the Bot's standing
    for (const r of ROLES.filter((x) => x.kind === 'task')) expect(offerFor(r).tools).toEqual(['submit_task', 'update_task'])
  })

  it('tells apart what a role may do only on itself (another Bot’s memory: Main Bots)', () => {
    expect(couldAllow({ main: false, groups: 'admin', kind: 'own' }, 'write_own_memory', { botId: 'self' })).toBe(true)
    expect(couldAllow({ main: false, groups: 'admin', kind: 'own' }, 'write_own_memory', { botId: 'other' })).toBe(false)
    expect(offerFor({ main: true, groups: 'none', kind: 'own' }).may('write_own_memory', { botId: 'other' })).toBe(true)
    expect(offerFor({ main: false, groups: 'none', kind: 'own' }).may('interrupt_bot')).toBe(false)
  })
})

// A team saved by the previous release (0.1.0, schema v1) opens in this build and is used: the file
// is migrated once, the Bots keep their Sessions, and the message 0.1.0 left pending is delivered.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { STATE_VERSION } from '../../../src/store/index.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { quiesce, team, user, userMessages } from '../delivery/helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()

it('opens the state.json 0.1.0 saved, migrates it, keeps every Bot and its Session, and delivers the message left pending', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  copyFileSync(new URL('../../fixtures/state-v1-0.1.0.json', import.meta.url), join(home, 'bot', 'state.json'))
  const host = track(await team({ mock: { fallback: { text: 'ok' } } }, { home }))
  const roster = host.ctx.botRoster
  expect(host.ctx.botStore.status().mode).toBe('writer')
  expect(roster.bots().map((b) => [b.name, b.main, b.permissionPreset, b.acceptsDelegatedWork])).toEqual([
    ['Main', true, 'workspace-write', false], ['Ada', false, 'workspace-write', false], ['Bob', false, 'read-only', false],
  ])
  expect(roster.bot('bot-2')!.sessionParts.map((p) => p.sessionId)).toEqual(['session-v1-ada'])
  // the pending message of 0.1.0 reaches Bob's chat (its Session id is the one 0.1.0 recorded)
  await quiesce(host)
  const bob = await roster.agentOf('bot-3')
  expect(String(bob.id)).toBe('session-v1-bob')
  expect(userMessages(bob).map((m) => m.text)).toEqual([expect.stringContaining('Pending when saved.')])
  expect(host.ctx.botDelivery.log().map((d) => d.status)).toEqual(['delivered', 'delivered'])
  // the team is usable: a new Bot, saved in the current schema version
  await roster.create(user, { name: 'Cy' })
  await quiesce(host)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(Object.values(saved.bots).map((b: any) => b.name)).toEqual(['Main', 'Ada', 'Bob', 'Cy'])
  expect(saved.nextIds.bot).toBe(5)
})

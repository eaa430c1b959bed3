// Backup and restore on the real DSH runtime (in-process): a team with Bots, a group, a chat and
// memory, backed up while it runs, restored into a new DSH_HOME at another absolute path, and
// started there — team, chats (re-written by DSH's persistence with the new working folder),
// workspace, memory and the archive index all come back and a Bot answers with its history.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { userTextsSinceLastAssistant, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { decodeArchive } from '../../../src/backup/format.ts'
import { restoreBackup, RestoreError } from '../../../src/backup/restore.ts'
import { disposedAfterEach, prompt, startTeamHost } from '../../support/dsh-host.ts'
import { quiesce } from '../delivery/helpers.ts'
import { bots, say, user } from '../rooms/helpers.ts'
import { from } from '../delivery/helpers.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()
const script: ScriptMap = { mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada answers' } }, bob: { fallback: { text: 'Bob answers' } } }

/** A fresh folder for a restored home, deeper than and apart from the first one's. */
function otherHome(): string {
  const base = tempDir('bot-team-moved-')
  const home = join(base, 'another user', 'dsh home')
  mkdirSync(home, { recursive: true })
  return realpathSync(home)
}

/** A running team: Ada and Bob, group Crew, a chat with Ada, a memory entry; its Sessions in a "Bot team" workspace (members' hidden) as DSH Web keeps them. */
async function builtTeam() {
  const host = track(await startTeamHost(script))
  const ids = await bots(host, ['Ada', 'Bob'])
  await host.ctx.botRooms.createGroup(user, { name: 'Crew', members: ['Ada', 'Bob'], admin: 'Ada' })
  await say(host, 'Crew', 'hello crew ROOM-31')
  const ada = await host.ctx.botRoster.agentOf(ids.Ada!)
  await prompt(host, ada, 'the plan is ZEBRA-7')
  await host.ctx.botMemory.remember(from(host, ids.Ada!), { text: 'Ada keeps the ZEBRA-7 plan' })
  await quiesce(host)
  const adaSid = host.ctx.botRoster.bot(ids.Ada!)!.sessionParts.at(-1)!.sessionId
  // DSH Web's workspace list (the in-process host has no web app): the real registry on this home.
  const stores = await openDshStores(host.home, { compression: 'none', workspaces: true })
  const teamFolder = join(realpathSync(host.home), 'bot', 'workspace')
  const ws = await stores.workspaces!.create(teamFolder, 'Bot team')
  await ws.setTitle!('Bot team') // its first start found the Sessions already there and named the workspace after the folder
  const teamSids = (await stores.sessions.list()).filter((h) => h.cwd === teamFolder).map((h) => h.id)
  for (const sid of teamSids) await ws.attachSession(sid)
  // DSH Web hides the group members' Sessions by archiving them (the plugin does so there).
  const memberSids = Object.values(host.ctx.botRooms.group('Crew')!.memberSessions)
  for (const sid of memberSids) await stores.workspaces!.archiveSession(sid)
  await stores.close()
  return { host, ids, adaSid, teamSids, memberSids }
}

describe('backup and restore into another home', () => {
  it('restores the team at another absolute path: Bots, group, chats with the new cwd, workspace and hidden Sessions, memory; a Bot answers with its history and the archive index rebuilds', async () => {
    const { host, ids, adaSid, teamSids, memberSids } = await builtTeam()
    const { archive, manifest } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
    expect(manifest.sessions.map((s) => s.id).sort()).toEqual([...teamSids].sort())
    const paths = decodeArchive(archive).map((e) => e.path)
    expect(paths).toContain('bot/state.json')
    expect(paths.some((p) => p.startsWith('bot/memory/bots/'))).toBe(true)
    expect(paths.some((p) => p.startsWith('bot/rooms/'))).toBe(true)
    expect(paths.filter((p) => p.includes('state.lock') || p.endsWith('.sqlite'))).toEqual([])
    await host.dispose()

    const home = otherHome()
    const started = performance.now()
    const stores = await openDshStores(home, { compression: 'none', workspaces: true })
    const report = await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
    const restoreMs = performance.now() - started
    const listed = (stores.workspaces as any).list().map((w: any) => ({ path: w.path, title: w.title, sessionIds: [...w.sessionIds].sort() }))
    const archived = [...stores.workspaces!.archivedSessionIds!].sort()
    await stores.close()
    console.info(`backup figures: sessions=${report.sessions} events=${report.events} archive=${archive.byteLength} bytes restore=${restoreMs.toFixed(0)} ms`)
    expect(report.warnings).toEqual([])
    const teamFolder = join(home, 'bot', 'workspace')
    expect(listed).toEqual([{ path: teamFolder, title: 'Bot team', sessionIds: [...teamSids].sort() }])
    expect(memberSids.length).toBeGreaterThan(0) // member Sessions are made when a member first speaks
    expect(archived).toEqual([...memberSids].sort())

    const moved = track(await startTeamHost(script, { home }))
    expect(
      moved.ctx.botRoster
        .bots()
        .map((b) => b.name)
        .sort(),
    ).toEqual(['Ada', 'Bob', 'Main'])
    expect(moved.ctx.botRooms.group('Crew')?.members.length).toBe(2)
    const log = await moved.ctx.sessionPersistence.inspect(adaSid as any)
    expect(log.meta.cwd).toBe(teamFolder)
    expect(JSON.stringify(log.events)).toContain('ZEBRA-7')
    expect(readFileSync(join(home, 'bot', 'memory', 'bots', ids.Ada!, 'MEMORY.md'), 'utf8')).toContain('Ada keeps the ZEBRA-7 plan')
    expect(moved.ctx.botMemory.recall(from(moved, ids.Ada!), 'zebra')).toContain('Ada keeps the ZEBRA-7 plan')

    // Ada resumes her restored chat: the model is sent her earlier turn, and she answers.
    const before = moved.adapter.model.loopRequests().length
    const ada = await moved.ctx.botRoster.agentOf(ids.Ada!)
    await prompt(moved, ada, 'what was the plan?')
    const request = moved.adapter.model
      .loopRequests()
      .slice(before)
      .find((r) => r.model === 'ada')!
    expect(userTextsSinceLastAssistant(request).join('\n')).toContain('what was the plan?')
    expect(JSON.stringify(request)).toContain('the plan is ZEBRA-7')
    const last = ada.session.events.filter((e) => e.type === 'assistant/message').at(-1) as any
    expect(JSON.stringify(last.data)).toContain('Ada answers')

    // The archive index was not in the backup; it rebuilds from the restored Sessions.
    expect(existsSync(join(home, 'bot', 'archive.sqlite'))).toBe(true)
    await moved.ctx.botArchive.caughtUp()
    expect(await moved.ctx.botArchive.readOwnChat(adaSid, { query: 'ZEBRA' })).toContain('ZEBRA-7')
  })

  it('refuses to restore over a team, or over Sessions that already exist, and changes nothing', async () => {
    const { host } = await builtTeam()
    const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
    const state = readFileSync(join(host.home, 'bot', 'state.json'), 'utf8')
    await expect(restoreBackup({ archive, home: host.home, sessions: host.ctx.sessionPersistence as any })).rejects.toThrow(/already holds a team/)
    expect(readFileSync(join(host.home, 'bot', 'state.json'), 'utf8')).toBe(state)

    // Same Sessions, team folder moved away: the id clash is found before anything is written.
    rmSync(join(host.home, 'bot', 'state.json'))
    await expect(restoreBackup({ archive, home: host.home, sessions: host.ctx.sessionPersistence as any })).rejects.toThrow(RestoreError)
    expect(existsSync(join(host.home, 'bot', 'state.json'))).toBe(false)
  })

  it('takes the copy again when a save lands while it copies, so bot/ is from one state revision', async () => {
    const { host, ids } = await builtTeam()
    const persistence = host.ctx.sessionPersistence as unknown as SessionReader
    let saves = 0
    const reader: SessionReader = {
      inspect: (id) => persistence.inspect(id),
      async list() {
        if (saves++ === 0) await host.ctx.botRoster.update(user, ids.Bob!, { role: 'Reviewer' }) // a save during the first copy
        return persistence.list()
      },
    }
    const { archive, attempts, manifest } = await takeBackup({ home: host.home, sessions: reader })
    expect(attempts).toBe(2)
    const state = JSON.parse(Buffer.from(decodeArchive(archive).find((e) => e.path === 'bot/state.json')!.data).toString('utf8'))
    expect(state.bots[ids.Bob!].role).toBe('Reviewer')
    expect(manifest.stateRevision).toBe(host.ctx.botStore.state.revision)
  })
})

// A Bot's working folder on the real DSH core (in-process): the person sets it, the Bot's next
// Session (own-chat part, group member Session) is created there; a Bot cannot set it, not even a
// Main Bot in a turn the user opened; bad folders are refused and change nothing.
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it, vi } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const team = async (fallback: Reply | ((req: RecordedRequest) => Reply) = { text: 'ok' }) => track(await startTeamHost({ fallback }))

const cwdOf = (host: DshHost, sessionId: string) => host.ctx.agents.get(SessionId(sessionId))!.session.header.cwd
const partOf = (host: DshHost, botId: string) => host.ctx.botRoster.bot(botId)!.sessionParts.at(-1)!.sessionId

describe("a Bot's working folder", () => {
  it("set by the person, applies from the next part: the current Session keeps its folder, the new part is created in the Bot's folder", async () => {
    const host = await team()
    const folder = join(host.home, 'code', 'x')
    mkdirSync(folder, { recursive: true })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const first = partOf(host, ada.id)
    const teamWorkspace = cwdOf(host, first)
    expect(teamWorkspace).toBe(join(host.home, 'bot', 'workspace'))
    const updated = await host.ctx.botRoster.update(user, ada.id, { workFolder: `${folder}/./` })
    expect(updated.workFolder).toBe(folder) // normalised
    expect(cwdOf(host, first)).toBe(teamWorkspace)
    const second = await host.ctx.botRoster.openOwnChat(ada.id, { endReason: 'test: a new part', note: 'context/none.md' })
    expect(cwdOf(host, second)).toBe(folder)
    // null: back to the team workspace, from the next part
    await host.ctx.botRoster.update(user, ada.id, { workFolder: null })
    expect(host.ctx.botRoster.bot(ada.id)!.workFolder).toBeUndefined()
    const third = await host.ctx.botRoster.openOwnChat(ada.id, { endReason: 'test: another part', note: 'context/none.md' })
    expect(cwdOf(host, third)).toBe(teamWorkspace)
  })

  it('a new group member Session of the Bot is created in its folder', async () => {
    const host = await team()
    const folder = join(host.home, 'code', 'y')
    mkdirSync(folder, { recursive: true })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', workFolder: folder })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Pair', members: [ada.id, bob.id] })
    const adaAgent = await host.ctx.botRooms.memberAgent(group.id, ada.id)
    const bobAgent = await host.ctx.botRooms.memberAgent(group.id, bob.id)
    expect(adaAgent.session.header.cwd).toBe(folder)
    expect(bobAgent.session.header.cwd).toBe(join(host.home, 'bot', 'workspace'))
  })

  it('refuses a relative path, a missing folder, a file, and the team folder, inside it or holding it, with the field named, and changes nothing', async () => {
    const host = await team()
    const file = join(host.home, 'a-file')
    writeFileSync(file, 'x')
    mkdirSync(join(host.home, 'bot', 'inner'))
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const revision = host.ctx.botStore.state.revision
    const cases: [unknown, RegExp][] = [
      ['code/x', /workFolder: must be an absolute path/],
      ['', /workFolder: must not be empty/],
      ['/tmp/a\nb', /workFolder: must not contain control characters/],
      [`/${'x'.repeat(1001)}`, /workFolder: must be at most 1000 characters/],
      [join(host.home, 'missing'), /workFolder: .* is not an existing folder/],
      [file, /workFolder: .* is not an existing folder/],
      [42, /workFolder: must be text/],
      // The team folder, inside it (outside the team workspace) and a folder holding it: a Bot
      // writing there could rewrite team state or pair itself.
      [join(host.home, 'bot'), /cannot be a Bot's working folder: it lies inside .*bot, which holds the team's own files/],
      [join(host.home, 'bot', 'inner'), /cannot be a Bot's working folder: it lies inside/],
      [host.home, /cannot be a Bot's working folder: it holds .*bot, which holds the team's own files/],
      ['/', /cannot be a Bot's working folder: it holds/],
    ]
    for (const [workFolder, message] of cases) {
      await expect(host.ctx.botRoster.update(user, ada.id, { workFolder })).rejects.toThrow(message)
    }
    await expect(host.ctx.botRoster.create(user, { name: 'Bob', workFolder: join(host.home, 'missing') })).rejects.toThrow(/not created: workFolder/)
    expect(host.ctx.botStore.state.revision).toBe(revision)
    expect(host.ctx.botRoster.find('Bob')).toBeUndefined()
  })

  it('a Main Bot cannot set it: manage_bot offers no working folder (one passed anyway never reaches the roster), and the roster refuses it naming the team page; nothing changed', async () => {
    const folder = '/tmp'
    const host = await team((req) => {
      if (lastToolResults(req).length) return { text: `done: ${lastToolResults(req)[0]!.text}` }
      return userTextsSinceLastAssistant(req).join('\n').includes('MOVE')
        ? { toolCalls: [{ name: 'manage_bot', args: { action: 'update', bot: 'Ada', work_folder: folder } }] }
        : { text: 'ok' }
    })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const agent = await host.ctx.botRoster.agentOf(main.id)
    userPrompt(agent, 'MOVE Ada to /tmp')
    await quiesce(host)
    const offered = host.adapter.model
      .loopRequests()
      .find((r) => r.toolNames.includes('manage_bot'))!
      .tools.find((t) => t.name === 'manage_bot')!
    expect(Object.keys((offered.parameters as { properties: object }).properties)).not.toContain('work_folder')
    // The undeclared argument never reaches the roster: the call changes nothing and says so.
    expect(toolResults(agent, 'manage_bot')).toEqual([expect.stringMatching(/^Refused: Bot Ada was not changed: .*nothing to change/)])
    expect(host.ctx.botRoster.bot(ada.id)!.workFolder).toBeUndefined()
    await expect(host.ctx.botRoster.update(from(host, main.id), 'Ada', { workFolder: folder })).rejects.toThrow(
      /Only the person sets a Bot's working folder.*team page/,
    )
    await expect(host.ctx.botRoster.create(from(host, main.id), { name: 'Cy', workFolder: folder })).rejects.toThrow(
      /Only the person sets a Bot's working folder/,
    )
  })

  it("a folder under the team workspace swapped for a link to bot/ after the person set it: the Bot's next part is refused and the person told, nothing recorded", async () => {
    const host = await team()
    const workspace = join(host.home, 'bot', 'workspace')
    const folder = join(workspace, 'ada')
    mkdirSync(folder)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', workFolder: folder })
    expect(host.ctx.botRoster.bot(ada.id)!.workFolderReal).toBe(realpathSync(folder))
    const parts = host.ctx.botRoster.bot(ada.id)!.sessionParts.length
    // What a workspace-write Bob can do in the workspace: replace the folder with a link to bot/.
    rmSync(folder, { recursive: true })
    symlinkSync(join(host.home, 'bot'), folder)
    await expect(host.ctx.botRoster.openOwnChat(ada.id, { endReason: 'test: a new part', note: 'context/none.md' })).rejects.toThrow(
      /Session of Bot Ada was not opened: .*ada lies in the team workspace but now resolves to .*bot, outside it/,
    )
    expect(host.ctx.botRoster.bot(ada.id)!.sessionParts).toHaveLength(parts)
    expect(host.ctx.botRoster.activity().at(-1)!.text).toMatch(/set the Bot's working folder again on the paired team page/)
  })

  it('a folder outside the workspace that now resolves elsewhere (a link to another folder): a new part and a resume of its Session after a restart are both refused', async () => {
    const first = await team()
    const folder = join(first.home, 'code', 'x')
    const elsewhere = join(first.home, 'code', 'other')
    mkdirSync(folder, { recursive: true })
    mkdirSync(elsewhere, { recursive: true })
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', workFolder: folder })
    const sessionId = partOf(first, ada.id)
    expect(cwdOf(first, sessionId)).toBe(folder)
    await prompt(first, first.ctx.agents.get(SessionId(sessionId))!, 'hello')
    await first.ctx.fiber.dispose()
    renameSync(folder, `${folder}.moved`)
    symlinkSync(elsewhere, folder)
    const second = await startTeamHost({ fallback: { text: 'ok' } }, { home: first.home })
    track(second)
    await expect(second.ctx.botRoster.agentOf(ada.id)).rejects.toThrow(/x now resolves to .*other, not to .*x as when the person set it/)
    expect(second.ctx.agents.get(SessionId(sessionId))).toBeUndefined()
    await expect(second.ctx.botRoster.openOwnChat(ada.id, { endReason: 'test', note: 'context/none.md' })).rejects.toThrow(/not opened/)
    // Set again by the person, it opens there.
    await second.ctx.botRoster.update(user, ada.id, { workFolder: folder })
    const next = await second.ctx.botRoster.openOwnChat(ada.id, { endReason: 'test', note: 'context/none.md' })
    expect(cwdOf(second, next)).toBe(folder)
  })

  it('warns at start-up when the team folder lies under /tmp, which every Bot at workspace-write may write where the sandbox runs', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const host = track(await startTeamHost({ fallback: { text: 'ok' } }, { permissions: true }))
      const lines = stderr.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.startsWith('dsh-bot-team:'))
      expect(host.home.startsWith('/tmp/')).toBe(true)
      expect(lines).toContainEqual(
        expect.stringMatching(/^dsh-bot-team: .*\/bot lies under \/tmp, which DSH's sandbox lets every Bot at workspace-write write/),
      )
    } finally {
      stderr.mockRestore()
    }
  })
})

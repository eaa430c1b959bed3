// e2e (backup, move, uninstall) with the real `dsh` CLI and DSH Web, the bundle installed from its
// tarball: a backup taken with `dsh plugin --profile web exec dsh-bot-team backup` while DSH Web
// runs, restored with `… exec dsh-bot-team restore` into another DSH_HOME at another absolute
// path, and DSH Web started there; then `dsh plugin remove` leaves the team in place and adding
// the bundle again adopts it. Only the model is fake.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { toolEnv } from '../../scripts/pack.ts'
import {
  api,
  homeWithBundle,
  installBundle,
  runDsh,
  sessionEvents,
  startWeb,
  teamStatus,
  untilEvents,
  untilTeamReady,
  type E2eHome,
  type WebProcess,
} from '../support/e2e.ts'

let model: ScriptedServer
const webs: WebProcess[] = []
const env = () => ({ DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })

function script(req: RecordedRequest): Reply {
  const me = /You are ([^\s,]+),/.exec(req.system)?.[1] ?? 'nobody'
  const results = lastToolResults(req)
  if (results.length) return { text: `${me} saw: ${results[0]!.text}` }
  const said = userTextsSinceLastAssistant(req).join('\n')
  if (me === 'Main' && said.includes('make Ada')) return { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: 'Ada', role: 'Reviewer' } }] }
  if (me === 'Main' && said.includes('remember')) return { toolCalls: [{ name: 'remember', args: { text: 'The launch plan is ZEBRA-7', team: true } }] }
  return { text: `${me}: ok` }
}

beforeEach(async () => {
  model = await startScriptedServer({ fallback: script })
})
afterEach(async () => {
  for (const web of webs.splice(0).reverse()) await web.stop()
  await model?.close()
})

async function web(home: E2eHome): Promise<WebProcess> {
  const w = await startWeb(home, env())
  webs.push(w)
  return w
}

async function mainSession(url: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const row = (await api(url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === 'Main')
    if (row) return row.sessionId
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('no Main session')
}

const turnEnds = (evs: any[]) => evs.filter((e) => e.type === 'turn/end').length

/** Prompt a Session as DSH Web's chat does and wait for the turn it starts to end. */
async function ask(url: string, sessionId: string, text: string): Promise<any[]> {
  const before = turnEnds(await sessionEvents(url, sessionId))
  await api(url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] })
  return untilEvents(url, sessionId, (evs) => turnEnds(evs) > before, `the answer to "${text}"`)
}

/** Poll the team status until this DSH writes the team (it claims the lock a moment after serving). */
async function untilWriter(url: string): Promise<any> {
  let status: any
  for (let i = 0; i < 300; i++) {
    status = await teamStatus(url)
    if (status.store?.mode === 'writer') return status
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`DSH did not become the team's writer: ${JSON.stringify(status?.store)}`)
}

const texts = (evs: any[]) => evs.filter((e) => e.type === 'assistant/message').map((e) => e.data.message.content.map((b: any) => b.text ?? '').join(''))
const exec = (home: E2eHome, args: string[], env: Record<string, string> = {}) =>
  runDsh(['plugin', '--profile', 'web', 'exec', 'dsh-bot-team', ...args], { ...home, env })

describe("backup and restore with the bundle's command", () => {
  it('backs up a running team and restores it into a home at another path, where DSH Web shows it and a Bot answers', async () => {
    const from = await homeWithBundle('backup-from', inject('bundleTarball'), [{ name: 'web' }])
    const a = await web(from)
    await untilTeamReady(a.url)
    const main = await mainSession(a.url)
    await ask(a.url, main, 'please make Ada')
    await ask(a.url, main, 'please remember the plan')
    const teamIds = (await teamStatus(a.url)).bots.map((b: any) => b.id).sort()
    expect(teamIds).toHaveLength(2)

    // The backup runs beside the live DSH Web, with the profile's bin and the node on PATH.
    const archive = join(from.cwd, 'team.dshbt')
    const backup = await exec(from, ['backup', '--out', archive])
    expect(backup.stderr).toBe('')
    expect(backup.code).toBe(0)
    expect(backup.stdout).toContain(`backup written: ${archive}`)
    expect(statSync(archive).mode & 0o777).toBe(0o600)
    await a.stop()

    const to = await homeWithBundle('backup-to', inject('bundleTarball'), [{ name: 'web' }])
    const toHome = realpathSync(to.home)
    expect(toHome).not.toBe(realpathSync(from.home))
    // DSH has never started with this home (only `dsh plugin add` ran) and no `dsh` is on PATH (the
    // README's install keeps it in ~/dsh/node_modules/.bin; `npm test` puts node_modules/.bin on
    // PATH, so the test takes every folder holding a `dsh` off it): the bin finds the DSH that started it.
    expect(existsSync(join(to.home, 'profiles', 'node_modules'))).toBe(false)
    const PATH = toolEnv()
      .PATH!.split(delimiter)
      .filter((dir) => !existsSync(join(dir, 'dsh')))
      .join(delimiter)
    const restore = await exec(to, ['restore', archive], { PATH })
    expect(restore.stderr).toBe('')
    expect(restore.code).toBe(0)
    console.info(`backup figures (e2e): archive=${statSync(archive).size} bytes; ${restore.stdout.trim()}`)

    // Session logs now live under the new home's folder name, not the old one.
    const folders = readdirSync(join(to.home, 'sessions'))
    expect(folders.every((f) => !f.includes('backup-from'))).toBe(true)
    expect(readFileSync(join(to.home, 'bot', 'memory', 'team', 'MEMORY.md'), 'utf8')).toContain('ZEBRA-7')

    const b = await web(to)
    const status = await untilWriter(b.url)
    expect(status.bots.map((x: any) => x.id).sort()).toEqual(teamIds)
    const workspaces = await api(b.url, 'workspace.list', {})
    const team = workspaces.items.find((w: any) => w.path === join(toHome, 'bot', 'workspace'))
    expect(team.title).toBe('Bot team')
    expect(team.sessionIds).toContain(main)
    expect(texts(await sessionEvents(b.url, main)).join('\n')).toContain('Main saw:')
    const answered = await ask(b.url, main, 'hello again')
    expect(texts(answered).at(-1)).toBe('Main: ok')
    expect(existsSync(join(to.home, 'bot', 'archive.sqlite'))).toBe(true)
  })
})

describe('uninstall', () => {
  it('dsh plugin remove leaves the team in place, and adding the bundle again adopts it', async () => {
    const home = await homeWithBundle('uninstall', inject('bundleTarball'), [{ name: 'web' }])
    const a = await web(home)
    await untilTeamReady(a.url)
    const main = await mainSession(a.url)
    await ask(a.url, main, 'please make Ada')
    const before = await teamStatus(a.url)
    await a.stop()
    const state = readFileSync(join(home.home, 'bot', 'state.json'), 'utf8')

    const removed = await runDsh(['plugin', '--profile', 'web', 'remove', 'dsh-bot-team'], { ...home, timeoutMs: 400_000 })
    expect(removed.code).toBe(0)
    expect(JSON.parse(readFileSync(join(home.home, 'profiles', 'web', 'package.json'), 'utf8')).dependencies?.['dsh-bot-team']).toBeUndefined()
    expect(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8')).toBe(state)
    expect(readdirSync(join(home.home, 'sessions')).length).toBeGreaterThan(0)

    await installBundle('web', inject('bundleTarball'), home)
    const b = await web(home)
    const after = await untilWriter(b.url)
    expect(after.bots.map((x: any) => [x.id, x.name])).toEqual(before.bots.map((x: any) => [x.id, x.name]))
    expect(texts(await ask(b.url, main, 'still there?')).at(-1)).toBe('Main: ok')
  })
})

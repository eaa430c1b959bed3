// The team's project on a real DSH web server and real git: named only from a paired browser,
// validated by the git layer (a folder that is no repository, a missing branch, a repository in
// the team folder refused with the reason, nothing written), kept in `project.json` across a restart.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { startDshHost } from '../../support/dsh-host.ts'
import { type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()
let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})
function project(): GitHome {
  const h = makeGitHome()
  homes.push(h)
  initProject(h)
  return h
}
const file = () => path.join(web().host.home, 'bot', 'project.json')

describe('the team project API', () => {
  it('names the project only from a paired browser; shows it; keeps it in project.json (0600)', async () => {
    const h = project()
    expect(await web().send('GET', '/project')).toMatchObject({ status: 200, body: { project: null } })
    const unpaired = await web().send('PUT', '/project', { path: h.project, branch: 'main' })
    expect(unpaired.status).toBe(403)
    expect(unpaired.body.error).toMatch(/paired team page/)
    expect(existsSync(file())).toBe(false)
    const head = h.sh(h.project, 'rev-parse', 'main').trim()
    const set = await web().send('PUT', '/project', { path: h.project, branch: 'main' }, await web().pairedHeaders())
    expect(set).toMatchObject({ status: 200, body: { project: { path: h.project, branch: 'main', gitDir: path.join(h.project, '.git'), bare: false, head } } })
    expect((await web().send('GET', '/project')).body.project).toEqual(set.body.project)
    expect(statSync(file()).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({ version: 1, project: set.body.project })
  })

  it('refuses a folder that is no repository, a missing branch, a repository inside the team folder and a bad body, changing nothing', async () => {
    const h = project()
    const paired = await web().pairedHeaders()
    await web().send('PUT', '/project', { path: h.project, branch: 'main' }, paired)
    const before = readFileSync(file(), 'utf8')
    const plain = path.join(h.base, 'plain')
    mkdirSync(plain)
    expect((await web().send('PUT', '/project', { path: plain, branch: 'main' }, paired)).body.error).toMatch(/is not a git repository\. Nothing was changed/)
    expect((await web().send('PUT', '/project', { path: h.project, branch: 'release' }, paired)).body.error).toMatch(/has no branch "release"/)
    const inside = path.join(web().host.home, 'bot', 'workspace', 'repo')
    mkdirSync(inside, { recursive: true })
    execFileSync('git', ['init', '-q', '-b', 'main', inside])
    const refused = await web().send('PUT', '/project', { path: inside, branch: 'main' }, paired)
    expect(refused).toMatchObject({ status: 400, body: { error: expect.stringMatching(/lies inside the team (folder|workspace)/) } })
    expect((await web().send('PUT', '/project', { path: h.project, branch: 'main', extra: 1 }, paired)).status).toBe(400)
    expect((await web().send('PUT', '/project', { path: h.project, branch: '-x' }, paired)).body.error).toMatch(/not a valid branch name/)
    expect(readFileSync(file(), 'utf8')).toBe(before)
  })

  it('releases only from a paired browser, with a check command (the release itself: tests/dsh/tasks/project.test.ts)', async () => {
    const unpaired = await web().send('POST', '/project/release', { check: 'true' })
    expect(unpaired.status).toBe(403)
    const paired = await web().pairedHeaders()
    expect((await web().send('POST', '/project/release', {}, paired)).status).toBe(400)
    const none = await web().send('POST', '/project/release', { check: 'true' }, paired)
    expect(none).toMatchObject({ status: 400, body: { error: expect.stringMatching(/no project to release into/) } })
    expect((await web().send('GET', '/project/release')).status).toBe(405)
  })

  it('reads the project back after a restart on the same team folder', async () => {
    const h = project()
    const set = await web().send('PUT', '/project', { path: h.project, branch: 'main' }, await web().pairedHeaders())
    const again = await startDshHost({ fallback: { text: 'ok' } }, { home: web().host.home })
    try {
      // The first host still writes; the second opens the same folder and reads the file at start.
      await again.ctx.plugin(plugin, { dir: path.join(web().host.home, 'bot'), writer: 'never', defaultModel: 'mock/mock' } as plugin.Config)
      await again.ctx.botTasks.settled()
      expect(again.ctx.botTasks.project()).toEqual(set.body.project)
    } finally {
      await again.dispose()
    }
  })

  it("refuses a repository in a shared temporary folder, or inside or over a Bot's working folder, changing nothing", async () => {
    const paired = await web().pairedHeaders()
    const repo = (dir: string) => {
      mkdirSync(dir, { recursive: true })
      execFileSync('git', ['init', '-q', '-b', 'main', dir])
      execFileSync('git', ['-C', dir, '-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '-q', '--allow-empty', '-m', 'initial'])
      return dir
    }
    const inTmp = repo(mkdtempSync(path.join(os.tmpdir(), 'bot-team-project-in-tmp-')))
    homes.push({ cleanup: () => rmSync(inTmp, { recursive: true, force: true }) } as GitHome)
    const put = (p: string) => web().send('PUT', '/project', { path: p, branch: 'main' }, paired)
    expect((await put(inTmp)).body.error).toMatch(/lies inside a shared temporary folder every Bot at workspace-write may write \(.*\)\. Nothing was changed/)
    const h = project()
    // Ada works in <base>/ada: a repository inside it, or one that holds it, is refused.
    const ada = path.join(h.base, 'ada')
    mkdirSync(ada)
    await web().host.ctx.botRoster.create({ kind: 'user' }, { name: 'Ada', workFolder: ada })
    expect((await put(repo(path.join(ada, 'repo')))).body.error).toMatch(/lies inside Bot Ada's working folder/)
    expect((await put(repo(h.base))).body.error).toMatch(/holds Bot Ada's working folder/)
    expect(existsSync(file())).toBe(false)
    expect((await put(h.project)).status).toBe(200)
  })

  it('lists a held project with the held settings and in GET /project; the paired person lets it go through /held (the project is forgotten), an unpaired one cannot', async () => {
    const h = project()
    const paired = await web().pairedHeaders()
    await web().send('PUT', '/project', { path: h.project, branch: 'main' }, paired)
    // As an upgrade would have left it: held, with the reason.
    await web().host.ctx.botStore.update((s) => {
      s.held = [
        { id: 'held-1', why: 'upgrade', at: new Date().toISOString(), kind: 'project', path: h.project, branch: 'main', problem: 'it was named before v7' },
      ]
    })
    const listed = await web().send('GET', '/held')
    expect(listed.body.held).toEqual([
      expect.objectContaining({
        id: 'held-1',
        kind: 'project',
        text: expect.stringMatching(/the team's project .* no project tasks until the person names it again: it was named before v7/),
      }),
    ])
    expect((await web().send('GET', '/project')).body).toMatchObject({ project: null, held: { id: 'held-1', path: h.project, branch: 'main' } })
    expect((await web().send('POST', '/held/held-1/dismiss', {})).status).toBe(403)
    const gone = await web().send('POST', '/held/held-1/dismiss', {}, paired)
    expect(gone).toMatchObject({ status: 200, body: { dismissed: { id: 'held-1', kind: 'project' }, held: [] } })
    expect(existsSync(file())).toBe(false)
    expect((await web().send('GET', '/project')).body).toEqual({ project: null })
  })
})

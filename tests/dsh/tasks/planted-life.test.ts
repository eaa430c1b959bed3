// Issue 32's whole-life test: a project task's whole life (plan → clone → submit → check → review →
// merge → release, and plan → cancel → work in progress) on the real DSH core, real git and DSH's
// real Landlock sandbox, with one link planted by the Bot in its own clone for each part of `.git`
// a write could go through, each pointing into a decoy repository. The test's root, the person's
// repository and the decoy lie outside every folder the sandbox lets a Bot write (not under /tmp).
// For each case: the task's end state (merged, refused with its reason, or clone kept), no edit
// lost, and a manifest of the root before and after — nothing changes outside the clone and the
// plugin's own folders, and the person's repository only as a release may change it.
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import type { Task } from '../../../src/tasks/record.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import { initProject, makeGitHome, personParent } from '../../support/git-project.ts'
import { taskTeam, taskWhere, user } from './helpers.ts'
import { COMMIT } from './project-helpers.ts'

/** Each part of `.git` a Bot may replace, as the shell command that plants it (`$D` is the decoy's `.git`). */
const PLANTS: Record<string, string> = {
  'refs-heads': 'rm -rf .git/refs/heads && ln -s "$D/refs/heads" .git/refs/heads',
  'refs-tags': 'rm -rf .git/refs/tags && ln -s "$D/refs/tags" .git/refs/tags',
  'objects-xx': 'for i in $(seq 0 255); do x=$(printf %02x $i); [ -e .git/objects/$x ] || ln -s "$D/objects/$x" .git/objects/$x; done',
  alternates: 'ln -sf "$D/objects/info/alternates" .git/objects/info/alternates',
  logs: 'rm -rf .git/logs && ln -s "$D/logs" .git/logs',
  'packed-refs': 'ln -sf "$D/packed-refs" .git/packed-refs',
  index: 'ln -sf "$D/index" .git/index',
  config: 'ln -sf "$D/config" .git/config',
  HEAD: 'ln -sf "$D/HEAD" .git/HEAD',
  'info-attributes': 'mkdir -p .git/info && ln -sf "$D/info/attributes" .git/info/attributes',
  'dotgit-file': 'mv .git .git-moved && printf "gitdir: %s\\n" "$D" > .git',
  commondir: 'printf "%s\\n" "$D" > .git/commondir',
  worktrees: 'ln -s "$D/worktrees" .git/worktrees',
}
const CASES = Object.keys(PLANTS)

type Manifest = Map<string, string>

/** Every entry below `dir` (links not followed): its kind and content hash or link target. */
function manifest(dir: string, skip: readonly string[] = []): Manifest {
  const out: Manifest = new Map()
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name)
      if (skip.some((s) => full === s || full.startsWith(`${s}/`))) continue
      const st = lstatSync(full)
      if (st.isSymbolicLink()) out.set(full, `link ${readlinkSync(full)}`)
      else if (st.isDirectory()) {
        out.set(full, 'dir')
        walk(full)
      } else out.set(full, `file ${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`)
    }
  }
  walk(dir)
  return out
}

/** What differs between two manifests: added, removed and changed paths. */
function changes(before: Manifest, after: Manifest): string[] {
  const out: string[] = []
  for (const [p, v] of after) if (before.get(p) !== v) out.push(`${before.has(p) ? 'changed' : 'added'} ${p}`)
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`)
  return out.sort()
}

describe("a project task's whole life with a link planted in its clone (real git, DSH's real sandbox, roots outside /tmp)", () => {
  let host: DshHost
  let root: string
  let decoy: string
  let person: string
  let worktrees: string
  let sh: (cwd: string, ...args: string[]) => string
  let integration = ''
  const report: string[] = []
  let mode: 'review' | 'wip' = 'review'
  const caseOf = (brief: string) => /case ([\w-]+)/.exec(brief)?.[1] ?? 'control'

  /** The Bot: on its first attempt, work (committed for review, uncommitted for WIP), plant its link, then submit. */
  const bot = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    const last = lastToolResults(req)
    if (last.some((r) => r.name === 'submit_task')) return { text: 'Done.' }
    if (last.some((r) => r.name === 'bash'))
      return mode === 'wip' ? { text: 'Stopping here.' } : { toolCalls: [{ name: 'submit_task', args: { note: 'done' } }] }
    const brief = lastUserText(req) ?? ''
    if (/Earlier attempts/i.test(brief) && mode === 'wip') return { text: 'Nothing more.' }
    const c = caseOf(brief)
    const plant = PLANTS[c] ?? 'true'
    const work = mode === 'review' ? `printf '${c}\\n' > work-${c}.txt && ${COMMIT}` : `printf '${c} wip\\n' > wip-${c}.txt`
    return {
      toolCalls: [{ name: 'bash', args: { command: `export D='${path.join(decoy, '.git')}'; ${work}; ${plant}; true`, description: 'work and plant' } }],
    }
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(personParent(), 'planted-life-'))
    decoy = path.join(root, 'decoy')
    person = path.join(root, 'person', 'repo')
    worktrees = path.join(root, 'worktrees')
    const g = makeGitHome()
    sh = g.sh
    // The person's repository and the decoy, both real repositories outside any folder a Bot may write.
    for (const dir of [person, decoy]) mkdirSync(dir, { recursive: true })
    initProject({ ...g, project: person }, { 'README.md': '# person\n', 'src/a.txt': 'one\n' })
    initProject({ ...g, project: decoy }, { 'DECOY.md': 'decoy\n' })
    const dg = path.join(decoy, '.git')
    sh(decoy, 'tag', 'v-decoy')
    sh(decoy, 'pack-refs', '--all')
    for (let i = 0; i < 256; i++) mkdirSync(path.join(dg, 'objects', i.toString(16).padStart(2, '0')), { recursive: true })
    mkdirSync(path.join(dg, 'objects', 'info'), { recursive: true })
    mkdirSync(path.join(dg, 'info'), { recursive: true })
    mkdirSync(path.join(dg, 'worktrees'), { recursive: true })
    writeFileSync(path.join(dg, 'info', 'attributes'), '* filter=decoy\n')
    for (const f of ['Cargo.lock', 'yarn.lock']) writeFileSync(path.join(dg, 'logs', f), 'keep me\n')
    g.cleanup()
    const home = path.join(root, 'home')
    mkdirSync(home)
    const team = await taskTeam(['Ada'], { Ada: bot }, { shell: true, home, config: { worktrees } })
    host = team.host
    await host.ctx.botTasks.setProject(user, { path: person, branch: 'main' })
  }, 60_000)

  afterAll(async () => {
    await host?.dispose()
    // The report: one line per case, printed for the closing note.
    process.stdout.write(`${report.join('\n')}\n`)
    rmSync(root, { recursive: true, force: true })
  })

  /** Run one case's task to its end; returns the task and what changed outside the plugin's folders. */
  async function life(c: string, path_: 'review' | 'wip', readOnly = false): Promise<{ task: Task; outside: string[] }> {
    mode = path_
    const skip = [path.join(root, 'home'), worktrees]
    const personBefore = manifest(person)
    const before = manifest(root, skip)
    const tasks = host.ctx.botTasks
    const { ids } = await tasks.plan(user, { tasks: [{ title: `case ${c} ${path_}`, brief: `case ${c}`, assignee: 'Ada', project: true, check: 'true' }] })
    const id = ids[0]!
    if (path_ === 'review') {
      const t = await taskWhere(host, id, (x) => x.status === 'review' || x.status === 'failed' || x.status === 'done')
      if (t.status === 'review') {
        const [after] = await tasks.review(user, id, 'accept').catch(async (e: Error) => {
          report.push(`  ${c}: accept refused: ${e.message.slice(0, 160)}`)
          return [tasks.board.get(id)!]
        })
        if (after && after.status !== 'done') await tasks.cancel(user, id, 'the accept did not merge')
      }
    } else {
      await taskWhere(host, id, (x) => x.attempts[0]?.outcome !== null && x.attempts[0]?.outcome !== undefined)
      if (readOnly) await host.ctx.botRoster.update(user, 'Ada', { permissionPreset: 'read-only' })
      await tasks.cancel(user, id, 'not needed')
    }
    await tasks.settled()
    if (readOnly) await host.ctx.botRoster.update(user, 'Ada', { permissionPreset: 'workspace-write' })
    if (!integration) integration = path.join(worktrees, readdirSync(worktrees)[0]!, 'integration.git')
    const clone = path.join(path.dirname(integration), 'clones', id)
    const outside = changes(before, manifest(root, [...skip]))
    expect(changes(personBefore, manifest(person))).toEqual([])
    return { task: tasks.board.get(id)!, outside: outside.filter((p) => !p.includes(`${clone}`)) }
  }

  /** Whether `file` with `text` is in some commit the integration clone holds, or in the kept clone. */
  function kept(task: Task, file: string, text: string): 'integration' | 'clone' | 'lost' {
    const inClone =
      task.worktree?.kept && existsSync(path.join(task.worktree.kept.dir, file)) && readFileSync(path.join(task.worktree.kept.dir, file), 'utf8') === text
    if (inClone) return 'clone'
    const commits = sh(integration, '--git-dir', integration, 'rev-list', '--all').trim().split('\n')
    for (const commit of commits) {
      try {
        if (sh(integration, '--git-dir', integration, 'show', `${commit}:${file}`) === text) return 'integration'
      } catch {}
    }
    return 'lost'
  }

  const endState = (t: Task) =>
    t.worktree?.merge === 'merged'
      ? 'merged'
      : t.worktree?.kept
        ? `clone kept (${t.worktree.kept.why.slice(0, 90)})`
        : `${t.status}: ${(t.attempts.at(-1)?.reason ?? t.history.at(-1)?.reason ?? '').slice(0, 110)}`

  it('control: with nothing planted the task merges', async () => {
    const { task, outside } = await life('control', 'review')
    expect(task.worktree?.merge).toBe('merged')
    expect(outside).toEqual([])
    report.push(`review control: ${endState(task)}; edit ${kept(task, 'work-control.txt', 'control\n')}; outside changes 0`)
  }, 60_000)

  for (const c of CASES) {
    it(`review path, ${c} planted: merged, refused or kept; no edit lost; nothing outside the clone changes`, async () => {
      const { task, outside } = await life(c, 'review')
      const where = kept(task, `work-${c}.txt`, `${c}\n`)
      report.push(`review ${c}: ${endState(task)}; edit ${where}; outside changes ${outside.length}`)
      expect(outside).toEqual([])
      expect(where).not.toBe('lost')
    }, 120_000)
  }

  for (const c of CASES)
    for (const readOnly of [false, true]) {
      it(`work in progress, ${c} planted, ${readOnly ? 'read-only' : 'workspace-write'}: committed by the Bot's authority or the clone kept; no edit lost`, async () => {
        const { task, outside } = await life(c, 'wip', readOnly)
        const where = kept(task, `wip-${c}.txt`, `${c} wip\n`)
        report.push(`wip ${readOnly ? 'read-only' : 'workspace-write'} ${c}: ${endState(task)}; edit ${where}; outside changes ${outside.length}`)
        expect(outside).toEqual([])
        expect(where).not.toBe('lost')
        if (readOnly) expect(task.worktree?.kept).toBeDefined()
      }, 120_000)
    }

  it("release: the person's repository changes only as a release may (the target ref, its reflog and logs/HEAD, new objects, the index, the work-tree paths of the merge)", async () => {
    const before = manifest(person)
    const old = sh(person, 'rev-parse', 'main').trim()
    const r = await host.ctx.botTasks.releaseProject(user, 'true')
    const now = sh(person, 'rev-parse', 'main').trim()
    expect(r.to).toBe(now)
    const paths = sh(person, 'diff', '--name-only', old, now).trim().split('\n').filter(Boolean)
    const gd = path.join(person, '.git')
    const allowed = (p: string) =>
      p === path.join(gd, 'refs', 'heads', 'main') ||
      p === path.join(gd, 'packed-refs') ||
      p === path.join(gd, 'logs', 'refs', 'heads', 'main') ||
      p === path.join(gd, 'logs', 'HEAD') ||
      p === path.join(gd, 'index') ||
      p.startsWith(path.join(gd, 'objects') + path.sep) ||
      paths.some((w) => p === path.join(person, w) || path.join(person, w).startsWith(`${p}/`))
    const changed = changes(before, manifest(person)).map((l) => l.split(' ').slice(1).join(' '))
    expect(changed.filter((p) => !allowed(p))).toEqual([])
    report.push(`release: main ${old.slice(0, 12)} → ${now.slice(0, 12)}; ${changed.length} paths changed, all of them what a release may change`)
  }, 60_000)
})

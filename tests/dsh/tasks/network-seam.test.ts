// The plugin's own confined processes at the Bot's network level (issues 32 and 33 together), on the
// real DSH core, real git, DSH's real sandbox and real namespace sets: a project task's clone status,
// check, work-in-progress commit and clone removal go through the one seam (`BotTasks.confined`,
// i.e. `botNetwork.confine`) in the Bot's own set at its level; the person's release check in a
// set of its own at the strictest level among the Bots whose work it holds (never full); a Bot at
// danger-full-access (`full`) keeps DSH's sandbox alone; where no set can be made, the step fails
// closed — the clone is kept and the person told, the release refused.
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lastUserText, type RecordedRequest, type Reply, type Rule } from '../../../scripts/scripted-model/format.ts'
import { botOwner } from '../../../src/core/network.ts'
import type { ConfineRequest } from '../../../src/network/service.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import type { GitHome } from '../../support/git-project.ts'
import { taskWhere, user } from './helpers.ts'
import { COMMIT, projectTeamOf, works } from './project-helpers.ts'

let hosts: DshHost[] = []
let homes: GitHome[] = []
afterEach(async () => {
  for (const h of hosts) await h.dispose()
  for (const h of homes) h.cleanup()
  hosts = []
  homes = []
})

/** What one confined command was: `git <sub>`, `rm` (a removal), `find` (stale locks) or `check`. */
function label(argv: readonly string[]): string {
  if (argv[0] === 'find') return 'find'
  if (argv[0] === '/bin/sh') return /rm -rf/.test(argv[2] ?? '') ? 'rm' : 'check'
  let i = 1
  while (i < argv.length && argv[i]!.startsWith('-')) i += argv[i] === '-c' ? 2 : 1
  return `git ${argv[i]}`
}

interface Confined {
  owner: string
  level: string
  mode: string
  what: string
  /** Whether the argv DSH's sandbox returned was entered into a namespace set. */
  entered: boolean
}

/** Record every call of the one function that runs a command at a level. */
function spyConfine(host: DshHost): Confined[] {
  const calls: Confined[] = []
  const network = host.ctx.botNetwork
  const original = network.confine.bind(network)
  network.confine = async (req: ConfineRequest) => {
    const out = await original(req)
    calls.push({ owner: req.owner, level: req.level, mode: req.mode, what: label(req.argv), entered: out.argv[0]!.endsWith('/nsenter') })
    return out
  }
  return calls
}

/** A check that prints its network namespace and its devices (one per line). */
const SEE_NET = `readlink /proc/self/ns/net; tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d ' '`

const cloneOf = (worktrees: string, taskId: string) => path.join(worktrees, readdirSync(worktrees)[0]!, 'clones', taskId)

const projectTeam = (rules: Record<string, Rule>, config?: Record<string, unknown>) => projectTeamOf(rules, { homes, hosts }, undefined, config)

/** A task Session's model: a brief saying DRAFT leaves a file uncommitted (its attempt ends unsubmitted); any other commits greet.js and submits. */
const drafter = (req: RecordedRequest): Reply =>
  (/DRAFT/.test(lastUserText(req) ?? '') ? works(`printf 'draft\\n' > draft.txt`) : works(`printf 'hi\\n' > greet.js && ${COMMIT}`))(req)

describe("the plugin's confined processes at the Bot's network level", () => {
  it("a default Bot (internet): its clone's status, its check, its work-in-progress commit and its clone's removal run in its own namespace set at internet; the release check in a set of its own, at none once a contributing Bot is at none", async () => {
    const { host, ids: bots, worktrees } = await projectTeam({ Ada: drafter })
    const calls = spyConfine(host)
    const tasks = host.ctx.botTasks
    const ada = botOwner(bots.Ada!)
    const { ids } = await tasks.plan(user, { tasks: [{ title: 'Greet', brief: 'Write greet.js.', assignee: 'Ada', project: true, check: SEE_NET }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'review')
    // the check ran inside Ada's set: its network namespace, lo and the user-mode stack's tap0 only
    const netId = host.ctx.botNetwork.netIdOf(ada, 'internet')
    expect(netId).toMatch(/^net:\[\d+\]$/)
    expect(t.worktree?.check).toMatchObject({ ok: true, tail: `${netId}\nlo\ntap0` })
    expect(calls.filter((c) => c.what === 'git status' || c.what === 'check').map((c) => [c.what, c.owner, c.level, c.mode, c.entered])).toEqual([
      ['git status', ada, 'internet', 'workspace-write', true],
      ['check', ada, 'internet', 'workspace-write', true],
    ])
    // plan → cancel → work in progress: committed in Ada's set, the clone removed there too
    calls.length = 0
    const { ids: drafts } = await tasks.plan(user, { tasks: [{ title: 'Draft', brief: 'DRAFT it.', assignee: 'Ada', project: true }] })
    await taskWhere(host, drafts[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    await tasks.cancel(user, drafts[0]!, 'not needed')
    await tasks.settled()
    expect(existsSync(cloneOf(worktrees, drafts[0]!))).toBe(false)
    expect(new Set(calls.map((c) => c.what))).toEqual(new Set(['git config', 'git status', 'find', 'git add', 'git commit', 'rm']))
    expect(calls.every((c) => c.owner === ada && c.level === 'internet' && c.mode === 'workspace-write' && c.entered)).toBe(true)
    // the release check: owner `release`, internet while Ada is at internet, none once she is at none
    await tasks.review(user, ids[0]!, 'accept')
    calls.length = 0
    await tasks.releaseProject(user, 'test -f greet.js')
    const checks = () => calls.filter((c) => c.what === 'check').map((c) => [c.owner, c.level, c.entered])
    expect(checks()).toEqual([['release', 'internet', true]])
    await host.ctx.botRoster.setNetwork(user, 'Ada', 'none')
    calls.length = 0
    await tasks.releaseProject(user, 'test -f greet.js').catch(() => {})
    expect(checks()).toEqual([['release', 'none', true]])
  }, 120_000)

  it('a Bot at none: its check sees only its loopback, in its set at none', async () => {
    const { host, ids: bots } = await projectTeam({ Ada: works(`printf 'hi\\n' > greet.js && ${COMMIT}`) })
    await host.ctx.botRoster.setNetwork(user, 'Ada', 'none')
    const calls = spyConfine(host)
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true, check: SEE_NET }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'review')
    const netId = host.ctx.botNetwork.netIdOf(botOwner(bots.Ada!), 'none')
    expect(t.worktree?.check).toMatchObject({ ok: true, tail: `${netId}\nlo` })
    expect(calls.map((c) => c.level)).toEqual(calls.map(() => 'none'))
  }, 60_000)

  it("a Bot at danger-full-access (full) keeps DSH's sandbox alone: its check runs unconfined in the machine's own network namespace; its work in progress is committed and its clone removed", async () => {
    const { host, ids: bots, worktrees } = await projectTeam({ Dan: drafter })
    await host.ctx.botRoster.update(user, 'Dan', { permissionPreset: 'danger-full-access' })
    expect(host.ctx.botRoster.ownNetwork(bots.Dan!)).toBe('full')
    const calls = spyConfine(host)
    const tasks = host.ctx.botTasks
    const { ids } = await tasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Dan', project: true, check: 'readlink /proc/self/ns/net' }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'review')
    expect(t.worktree?.check).toMatchObject({ ok: true, tail: readlinkSync('/proc/self/ns/net') })
    const { ids: drafts } = await tasks.plan(user, { tasks: [{ title: 'Draft', brief: 'DRAFT it.', assignee: 'Dan', project: true }] })
    await taskWhere(host, drafts[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    await tasks.cancel(user, drafts[0]!, 'not needed')
    await tasks.settled()
    expect(existsSync(cloneOf(worktrees, drafts[0]!))).toBe(false)
    expect(tasks.board.get(drafts[0]!)!.worktree?.kept).toBeUndefined()
    expect(calls.map((c) => c.what)).toEqual(expect.arrayContaining(['git status', 'check', 'git add', 'git commit', 'rm']))
    // everything at full, unentered: git and the check at danger-full-access (unconfined), a removal at workspace-write with the folder its only root
    expect(calls.every((c) => c.owner === botOwner(bots.Dan!) && c.level === 'full' && !c.entered)).toBe(true)
    expect(calls.every((c) => c.mode === (c.what === 'rm' ? 'workspace-write' : 'danger-full-access'))).toBe(true)
  }, 120_000)

  it("a deleted Bot's clone is read in the plugin's own set at none (its mode unknown: read-only, so the clone is kept with its work), leaving no set of the deleted Bot", async () => {
    const { host, ids: bots, worktrees } = await projectTeam({ Ada: drafter })
    const tasks = host.ctx.botTasks
    const ada = botOwner(bots.Ada!)
    const { ids } = await tasks.plan(user, { tasks: [{ title: 'Draft', brief: 'DRAFT it.', assignee: 'Ada', project: true }] })
    await taskWhere(host, ids[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    expect(host.ctx.botNetwork.isUp(ada, 'internet')).toBe(true)
    const calls = spyConfine(host)
    await host.ctx.botRoster.delete(user, 'Ada', 'not needed')
    await tasks.cancel(user, ids[0]!, 'its Bot is gone')
    await tasks.settled()
    const clone = cloneOf(worktrees, ids[0]!)
    expect(tasks.board.get(ids[0]!)!.worktree?.kept).toMatchObject({ dir: clone, why: expect.stringMatching(/ran read-only/) })
    expect(readFileSync(path.join(clone, 'draft.txt'), 'utf8')).toBe('draft\n')
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.every((c) => c.owner === 'plugin' && c.level === 'none' && c.entered)).toBe(true)
    expect([host.ctx.botNetwork.isUp(ada, 'internet'), host.ctx.botNetwork.isUp(ada, 'none')]).toEqual([false, false])
  }, 60_000)

  it("where no namespace set can be made (the probe's programs hidden): a default Bot's clone is kept with its work and the person told, never deleted; the release refused; a Bot at full is unchanged", async () => {
    const {
      host,
      ids: bots,
      worktrees,
    } = await projectTeam({ Ada: { text: 'ok' }, Dan: drafter }, { network: { programDirs: [path.join('/nonexistent', 'bin')], refreshSeconds: 0 } })
    expect(host.ctx.botNetwork.probe()).toMatchObject({ state: 'unavailable' })
    await host.ctx.botRoster.update(user, 'Dan', { permissionPreset: 'danger-full-access' })
    const tasks = host.ctx.botTasks
    const { ids } = await tasks.plan(user, { tasks: [{ title: 'Draft', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, ids[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    const clone = cloneOf(worktrees, ids[0]!)
    writeFileSync(path.join(clone, 'draft.txt'), 'draft\n')
    await tasks.cancel(user, ids[0]!, 'not needed')
    await tasks.settled()
    const kept = tasks.board.get(ids[0]!)!.worktree?.kept
    expect(kept).toMatchObject({ dir: clone, why: expect.stringMatching(/cannot run it at its network level "internet" \(.*lacks unshare.*fix: install/) })
    expect(readFileSync(path.join(clone, 'draft.txt'), 'utf8')).toBe('draft\n')
    const told = (await host.ctx.botDiagnostics.read())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).message as string)
    expect(told).toContainEqual(expect.stringMatching(new RegExp(`^The clone of ${ids[0]} was kept in ${clone}: .*network level`)))
    await expect(tasks.releaseProject(user, 'true')).rejects.toThrow(
      /The full check cannot run: this machine cannot run it at its network level "internet".*Nothing was released/,
    )
    // Dan at full: today's behaviour (DSH's sandbox alone), so his work in progress is committed and his clone removed
    const { ids: dan } = await tasks.plan(user, { tasks: [{ title: 'Draft', brief: 'DRAFT it.', assignee: 'Dan', project: true }] })
    await taskWhere(host, dan[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    await tasks.cancel(user, dan[0]!, 'not needed')
    await tasks.settled()
    expect(existsSync(cloneOf(worktrees, dan[0]!))).toBe(false)
    expect(tasks.board.get(dan[0]!)!.worktree?.kept).toBeUndefined()
    expect(host.ctx.botRoster.ownNetwork(bots.Dan!)).toBe('full')
  }, 120_000)
})

// The git runner itself, with a stand-in `git` (a shell script) so each check is exact: what the
// process gets (the overrides first on its command line, the fixed environment, nothing inherited),
// the time limit and the output cap.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { configArgs, GitRunner } from '../../../src/worktrees/git.ts'

let dirs: string[] = []
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs = []
})
function fakeGit(body: string): { dir: string; runner: GitRunner; home: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wt-git-'))
  dirs.push(dir)
  const file = path.join(dir, 'git')
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  const home = path.join(dir, 'empty')
  return { dir, runner: new GitRunner({ emptyHome: home, git: file }), home }
}

describe('git runner', () => {
  it('passes the overrides before every argument and a fixed environment with nothing inherited', async () => {
    const { dir, runner, home } = fakeGit('printf "%s\\n" "$@"; echo ---; env | sort')
    process.env.GIT_DIR = '/somewhere/else'
    process.env.GIT_CONFIG_PARAMETERS = "'core.hooksPath'='/evil'"
    try {
      const r = await runner.run(['rev-parse', 'HEAD'], { cwd: dir, gitDir: '/repo.git' })
      const [args, env] = r.stdout.split('---\n') as [string, string]
      expect(args.trim().split('\n')).toEqual([...configArgs(), '--git-dir=/repo.git', 'rev-parse', 'HEAD'])
      expect(args).toContain('core.hooksPath=/dev/null')
      expect(args).toContain('core.fsmonitor=false')
      const vars = Object.fromEntries(
        env
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      )
      expect(vars).toMatchObject({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_ATTR_NOSYSTEM: '1', HOME: home, GIT_TERMINAL_PROMPT: '0' })
      expect(vars.GIT_DIR).toBeUndefined()
      expect(vars.GIT_CONFIG_PARAMETERS).toBeUndefined()
    } finally {
      delete process.env.GIT_DIR
      delete process.env.GIT_CONFIG_PARAMETERS
    }
  })

  it('stops a process that runs past its time limit', async () => {
    const { dir, runner } = fakeGit('exec sleep 30')
    await expect(runner.run(['fetch'], { cwd: dir, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: 'git fetch ran longer than 0 s and was stopped.',
    })
  })

  it('stops a process that writes more than its output cap', async () => {
    const { dir, runner } = fakeGit('exec yes')
    await expect(runner.run(['log'], { cwd: dir, maxOutput: 4096 })).rejects.toMatchObject({
      code: 'EOUTPUT',
      message: 'git log wrote more than 4096 bytes and was stopped.',
    })
  })

  it("a non-zero exit is an error naming git's last line, unless the caller takes that code as an answer", async () => {
    const { dir, runner } = fakeGit('echo "fatal: no such ref" >&2; exit 1')
    await expect(runner.run(['rev-parse', 'x'], { cwd: dir })).rejects.toMatchObject({
      code: 'EGIT',
      exitCode: 1,
      message: 'git rev-parse failed (exit 1): fatal: no such ref',
    })
    expect((await runner.run(['merge-base'], { cwd: dir, okCodes: [0, 1] })).code).toBe(1)
  })

  it('a time limit ends what the process started too (a fetch leaves no upload-pack behind)', async () => {
    const { dir, home } = fakeGit('sleep 60 & echo $! > "$0.child"; wait')
    const runner = new GitRunner({ emptyHome: home, git: path.join(dir, 'git'), timeoutMs: 300 })
    await expect(runner.run(['fetch'], { cwd: dir })).rejects.toMatchObject({ code: 'ETIMEDOUT' })
    const child = Number(readFileSync(path.join(dir, 'git.child'), 'utf8'))
    // Gone, or dead and not yet reaped by its new parent (state Z): either way it runs no more.
    const state = (() => {
      try {
        return readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.[0]
      } catch {
        return 'gone'
      }
    })()
    expect(['gone', 'Z', 'X']).toContain(state)
  })
})

// The check runner with real processes: the exit status and the masked last lines as evidence, the
// time limit killing the whole process group, the output cap keeping the tail, bad commands refused.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCheck } from '../../../src/worktrees/check.ts'

let dirs: string[] = []
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs = []
})
const dir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'wt-check-'))
  dirs.push(d)
  return d
}
const plain = (s: string) => s

describe('check runner', () => {
  it('a passing command gives exit 0 and its last lines', async () => {
    const r = await runCheck({ command: 'for i in 1 2 3 4 5; do echo line $i; done', cwd: dir(), mask: plain, lines: 2 })
    expect(r).toMatchObject({ ok: true, exitCode: 0, timedOut: false, lastLines: 'line 4\nline 5', truncated: false })
    expect(r.summary).toMatch(/^passed \(exit 0, /)
  })

  it('a failing command gives its exit status and its stderr among the last lines, in its clone', async () => {
    const cwd = dir()
    const r = await runCheck({ command: 'pwd; echo broken >&2; exit 3', cwd, mask: plain })
    expect(r).toMatchObject({ ok: false, exitCode: 3, lastLines: `${cwd}\nbroken` })
  })

  it('every line passes through the masking function before it is evidence', async () => {
    const r = await runCheck({ command: 'echo token=s3cr3t-value', cwd: dir(), mask: (s) => s.replaceAll('s3cr3t-value', '[secret:TOKEN]') })
    expect(r.lastLines).toBe('token=[secret:TOKEN]')
  })

  it('the time limit kills the command and everything it started', async () => {
    const cwd = dir()
    const r = await runCheck({ command: '(sleep 30; touch late) & sleep 30', cwd, mask: plain, timeoutMs: 300 })
    expect(r).toMatchObject({ ok: false, timedOut: true })
    expect(r.summary).toMatch(/^failed \(stopped after 0 s/)
    expect(existsSync(path.join(cwd, 'late'))).toBe(false)
  })

  it('output over the cap keeps the tail and counts the rest', async () => {
    const r = await runCheck({ command: 'seq 1 100000', cwd: dir(), mask: plain, outputBytes: 1000, lines: 1 })
    expect(r.lastLines).toBe('100000')
    expect(r.truncated).toBe(true)
    expect(r.outputBytes).toBe(588895)
  })

  it('refuses an empty command and runs nothing', async () => {
    await expect(runCheck({ command: '', cwd: dir(), mask: plain })).rejects.toThrow(/^The check command is not valid: .*Nothing ran\.$/)
  })
})

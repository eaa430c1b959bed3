// e2e (bench smoke): `bench/ui.ts` and `bench/ui-board.ts` run end to end small — the packed bundle
// in DSH Web, a copy of the home without it, Chromium — and each prints its one result line. Not a timed test: it
// checks only that the bench works and its line has every figure; the figures are not judged.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { node22, root, toolEnv } from '../../scripts/pack.ts'

function runBench(args: string[], file = 'ui.ts'): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [join(root, 'bench', file), ...args], {
      cwd: root,
      env: toolEnv({ BENCH_UI_TARBALL: inject('bundleTarball') }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
}

it('bench ui runs with 3 Bots and 1 group and prints its result line', async () => {
  const { code, out } = await runBench(['3', '1', '1', '2'])
  expect(out).toMatch(/^bench ui: bots=3 groups=1 team_ms=\d+ dsh_ms=\d+ ratio=\d+\.\d\d status_push_p95_ms=\d+$/m)
  expect(code).toBe(0)
})

it('bench ui board runs with 3 tasks on 2 Bots and prints its result line', async () => {
  const { code, out } = await runBench(['3', '1', '2'], 'ui-board.ts')
  expect(out).toMatch(/^bench ui board: tasks=3 board_ms\/dsh_ms=\d+\.\d\d board_ms=\d+ dsh_ms=\d+ dsh_rows=\d+$/m)
  expect(code).toBe(0)
})

// e2e (bench smoke): `bench/ui.ts` runs end to end with a tiny team — the packed bundle in DSH Web,
// a copy of the home without it, Chromium — and prints its one result line. Not a timed test: it
// checks only that the bench works and its line has every figure; the figures are not judged.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { node22, root, toolEnv } from '../../scripts/pack.ts'

function runBench(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [join(root, 'bench', 'ui.ts'), ...args], {
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

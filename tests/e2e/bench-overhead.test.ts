// e2e (bench smoke): `bench/overhead.ts` runs end to end with a small team — the packed bundle in
// DSH Web, the scripted model server — and prints its result line. Not a judged test of the
// figures: it checks that the bench works and that its line has every field (the figures are
// the bench's to print).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { node22, root, toolEnv } from '../../scripts/pack.ts'

it('bench overhead runs with a team of 1, 5 and 9 Bots, prints its result line and saves the plain size', async () => {
  const plainFile = join(mkdtempSync(join(tmpdir(), 'bench-overhead-')), 'plain.json')
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(node22, [join(root, 'bench', 'overhead.ts'), '1,5,9'], {
      cwd: root,
      env: toolEnv({ BENCH_OVERHEAD_TARBALL: inject('bundleTarball'), BENCH_PLAIN_FILE: plainFile }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
  expect(out).toMatch(
    /^bench overhead: bot\/plain=\d\.\d{3} main\/plain=\d\.\d{3} member\/plain=\d\.\d{3} plain_chars=\d+ team_section_1\/5\/9=\d+\/\d+\/\d+ team_section_9\/1=\d\.\d\d$/m,
  )
  for (const who of ['plain', 'main', 'bot', 'member'])
    expect(out).toMatch(new RegExp(`^  ${who}: chars=\\d+ system=\\d+ tools=\\d+ schema_chars=\\d+ team_tools=\\d+`, 'm'))
  expect(JSON.parse(readFileSync(plainFile, 'utf8')).chars).toBeGreaterThan(1000)
  expect(code).toBe(0)
})

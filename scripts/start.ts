// The README's start command (`npm start`, through scripts/run.mjs): DSH Web on 127.0.0.1 with
// this bundle installed in a project-local DSH_HOME (`.demo/home`; never the user's ~/.dsh unless
// `--home ~/.dsh` is passed), using DeepSeek when DEEPSEEK_API_KEY is set and the offline demo
// model (the scripted model server with scripts/demo-script.ts, on loopback) otherwise; the demo
// also makes its repository and clone folder beside the home (`scripts/demo-project.ts`).
// usage: node scripts/start.ts [--port 3080] [--home DIR] [--tarball FILE]
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { isInside, SHARED_TEMP_DIRS } from '../src/worktrees/policy.ts'
import { findPrograms, PROGRAM_DIRS } from '../src/network/probe.ts'
import { setUpDemo } from './demo-project.ts'
import demoScript from './demo-script.ts'
import { buildAndPack, dshBin, node22, root, toolEnv } from './pack.ts'
import { startScriptedServer } from './scripted-model/server.ts'

function arg(name: string): string | undefined {
  const args = process.argv.slice(2)
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1)
}

const say = (line: string) => process.stdout.write(`[bot-team] ${line}\n`)
const home = resolve(arg('--home') ?? join(root, '.demo', 'home'))
const work = join(dirname(home), 'work')
const port = arg('--port') ?? '3080'
mkdirSync(home, { recursive: true })
mkdirSync(work, { recursive: true })

// 1. The model: DeepSeek when a key is set, the offline demo model otherwise.
const env: Record<string, string> = { DSH_HOME: home }
let demo: Awaited<ReturnType<typeof startScriptedServer>> | undefined
if (process.env.DEEPSEEK_API_KEY) {
  say('using DeepSeek (DEEPSEEK_API_KEY is set)')
} else {
  demo = await startScriptedServer(demoScript)
  Object.assign(env, { DEEPSEEK_BASE_URL: demo.url, DEEPSEEK_API_KEY: 'offline-demo' })
  say(`no DEEPSEEK_API_KEY: using the offline demo model on ${demo.url}`)
}

// 2. The bundle, installed into the `web` profile the way README tells a user to.
const packed = arg('--tarball') ? { tarball: resolve(arg('--tarball')!) } : buildAndPack()
const installedManifest = join(home, 'profiles', 'web', 'node_modules', 'dsh-bot-team', 'package.json')
const installed = existsSync(installedManifest) ? JSON.parse(readFileSync(installedManifest, 'utf8')).version : undefined
if (!packed.tarball.endsWith(`-${installed}.tgz`)) {
  say(`installing ${packed.tarball.split('/').pop()} into ${home}/profiles/web (first time: ~1-2 min, builds better-sqlite3)`)
  const add = spawnSync(node22, [dshBin, 'plugin', '--profile', 'web', 'add', '--allow-build=better-sqlite3', packed.tarball], {
    cwd: work,
    env: toolEnv(env),
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (add.status !== 0) {
    say('dsh plugin add failed (see above)')
    process.exit(add.status ?? 1)
  }
}

// 3. The offline demo's project: a tiny repository and the clones' folder beside the home (outside
// a shared temp folder, where every Bot may write), named on the person's behalf: this is their own
// offline install. A profile patch with entries is left alone (clones then go to the default folder),
// and a home given with --home (it may be the person's own) gets no demo project.
if (demo && arg('--home')) say('the demo names no project in a home given with --home')
else if (demo) {
  const beside = dirname(home)
  const shared = [...SHARED_TEMP_DIRS, tmpdir()].map((d) => (existsSync(d) ? realpathSync(d) : d))
  if (shared.some((d) => isInside(realpathSync(beside), d))) say(`the demo names no project: ${beside} lies in a shared temporary folder`)
  else say(await setUpDemo(home, beside).catch((error: Error) => `the demo names no project: ${error.message}`))
}

// Bots' shells run in namespaces of their own: what this machine lacks for that is said, never installed here.
const net = findPrograms(PROGRAM_DIRS)
if ('missing' in net)
  say(
    `Bots' shell commands need ${net.missing.join(', ')} (a network of their own for each Bot): install them with \`apt-get install ${net.packages.join(' ')}\`. Until then a Bot at "internet" or "none" has its commands refused; "full" on the team page runs them on the machine's whole network.`,
  )

// 4. DSH Web, on loopback.
const web = spawn(node22, [dshBin, 'web', '--no-open', '--host', '127.0.0.1', '--port', port], {
  cwd: work,
  env: toolEnv(env),
  stdio: ['ignore', 'pipe', 'inherit'],
})
web.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  const url = /dsh web: (http:\/\/\S+)/.exec(chunk.toString())?.[1]
  if (url) say(`DSH Web is ready at ${url} — team page: ${url}/bot-team`)
})
const stop = () => web.kill('SIGTERM')
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
web.on('close', async (code) => {
  await demo?.close()
  process.exit(code ?? 0)
})

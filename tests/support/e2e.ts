// Support for the e2e tier: the real `dsh` CLI (the project's pinned launcher, run by Node 22),
// a temporary DSH_HOME per test, the bundle installed from its packed tarball with
// `dsh plugin add` exactly as README tells a user, and session-log reading.
// Only the model is fake (the scripted server on loopback). `dsh` is always spawned
// asynchronously: spawnSync would block the event loop that serves the in-process model.
//
// Every test stands alone: `homeWithBundle` gives each caller its own DSH_HOME. The expensive part
// (installing the bundle into a profile: pnpm, and a native build the first time) is done once
// per tarball and profile, into a template home beside the tarball, and copied for each caller;
// any test may be the first to ask for it.
import { lastToolResults, offersTool, type Script } from '../../scripts/scripted-model/format.ts'
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { onTestFinished } from 'vitest'
import { dshBin, node22, toolEnv } from '../../scripts/pack.ts'

/** Home-level patch: plain-JSONL session logs (readable in tests) and no LLM retries (fast failures). */
export const TEST_HOME_PATCH = `- id: session-persistence-jsonl
  config:
    root: !!js dshHomePath('sessions')
    compression: none
    writeBatchMaxDelayMs: 1
- id: llm-deepseek
  config:
    retryPolicy:
      mode: normal
      maxRetries: 0
`

export interface E2eHome {
  home: string
  cwd: string
}

export function makeHome(label: string): E2eHome {
  const base = mkdtempSync(join(tmpdir(), `bot-team-e2e-${label}-`))
  const home = join(base, 'home')
  const cwd = join(base, 'work')
  mkdirSync(home, { recursive: true })
  mkdirSync(cwd, { recursive: true })
  writeFileSync(join(home, 'cordis.patch.yml'), TEST_HOME_PATCH)
  return { home, cwd }
}

/** The bundle layers of DSH's `web` profile template: the base plus DSH's web app. */
export const WEB_APP_BUNDLES = ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app']

/**
 * Create `profiles/<name>` with the given bundle layers, as DSH's own profile init writes it.
 * `dsh plugin --profile <name> add` initializes an unknown name with the base bundle only and
 * never touches an existing manifest, so a profile that serves DSH's web app under another name
 * (as DSH Desktop's does) is set up here first.
 */
export function initProfile(home: string, name: string, bundles: readonly string[]): void {
  const dir = join(home, 'profiles', name)
  mkdirSync(dir, { recursive: true })
  const manifest = { name: `dsh-profile-${name}`, private: true, dependencies: {}, dsh: { profile: { bundles: [...bundles] } } }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
}

export interface ProfileSpec {
  /** Profile name (`dsh --profile <name>`). */
  name: string
  /** Bundle layers before the plugin; omitted: DSH's own template for the name (web, headless). */
  bundles?: readonly string[]
}

const templates = new Map<string, Promise<string>>()

/** A home with the bundle installed in `profiles`, made once per tarball and profile set and kept beside the tarball. */
function templateHome(tarball: string, profiles: readonly ProfileSpec[]): Promise<string> {
  const key = profiles
    .map((p) => `${p.name}=${(p.bundles ?? ['template']).join('+')}`)
    .join(',')
    .replace(/[^\w=+,.-]/g, '_')
  const dir = join(dirname(tarball), 'homes', key)
  let made = templates.get(dir)
  if (!made) {
    made = (async () => {
      if (existsSync(join(dir, 'home'))) return join(dir, 'home') // made by an earlier test file of this run
      const staging = makeHome('template')
      for (const profile of profiles) {
        if (profile.bundles) initProfile(staging.home, profile.name, profile.bundles)
        await installBundle(profile.name, tarball, staging)
      }
      mkdirSync(dir, { recursive: true })
      renameSync(staging.home, join(dir, 'home'))
      rmSync(dirname(staging.home), { recursive: true, force: true })
      return join(dir, 'home')
    })()
    templates.set(dir, made)
  }
  return made
}

/**
 * A fresh DSH_HOME of its own, with the packed bundle installed in each of `profiles` (by
 * `dsh plugin add`, as a user would): no team state, no sessions, nothing from another test.
 * Call it in a test or `beforeEach`: the copy is removed after a passing test (after its
 * `afterEach` hooks stopped DSH) and kept after a failing one, for a look.
 */
export async function homeWithBundle(label: string, tarball: string, profiles: readonly ProfileSpec[]): Promise<E2eHome> {
  const template = await templateHome(tarball, profiles)
  const base = mkdtempSync(join(tmpdir(), `bot-team-e2e-${label}-`))
  const home = join(base, 'home')
  const cwd = join(base, 'work')
  // Symlinks stay as they are: the profiles' node_modules/.bin links are relative, the
  // profiles/node_modules fallback links point into the dsh installation.
  cpSync(template, home, { recursive: true, verbatimSymlinks: true })
  mkdirSync(cwd, { recursive: true })
  onTestFinished(({ task }) => {
    if (task.result?.state === 'pass') rmSync(base, { recursive: true, force: true })
  })
  return { home, cwd }
}

export function dshEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return toolEnv({ DSH_HOME: home, DSH_TELEMETRY_DISABLED: '1', ...extra })
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * DSH's stderr without the plugin's start-up warning that the DSH home (or the team folder) lies
 * under /tmp, where every Bot at workspace-write may write: every test home is a temp folder there.
 */
export function stderrBesidesTmpHome(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^dsh-bot-team: \S+ lies under \/tmp, which DSH's sandbox lets every Bot at workspace-write write/.test(line))
    .join('\n')
}

export function runDsh(args: string[], opts: { home: string; cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [dshBin, ...args], { cwd: opts.cwd, env: dshEnv(opts.home, opts.env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 240_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** `dsh plugin --profile <p> add --allow-build=better-sqlite3 <tarball>`, the README's install command. */
export async function installBundle(profile: string, tarball: string, home: E2eHome): Promise<RunResult> {
  const r = await runDsh(['plugin', '--profile', profile, 'add', '--allow-build=better-sqlite3', tarball], { ...home, timeoutMs: 400_000 })
  if (r.code !== 0) throw new Error(`dsh plugin add failed (${r.code}):\n${r.stdout}\n${r.stderr}`)
  return r
}

export interface WebProcess {
  url: string
  child: ChildProcess
  output: () => string
  stop(): Promise<void>
}

/** How to start a program: `spawn` itself, or inside a namespace of the test's (`outer-ns.ts`). */
export type Spawner = (argv: readonly string[], options: SpawnOptions & { cwd: string }) => ChildProcess

/**
 * Start DSH's web app and wait for its URL line: `dsh web --no-open --port 0`, or with `profile`
 * another profile that loads the web-app bundle (`dsh --profile <name> --no-open --port 0`).
 */
export function startWeb(
  home: E2eHome,
  env: Record<string, string> = {},
  profile = 'web',
  via: Spawner = (argv, options) => spawn(argv[0]!, argv.slice(1), options),
): Promise<WebProcess> {
  const boot = profile === 'web' ? ['web'] : ['--profile', profile]
  return new Promise((resolve, reject) => {
    const child = via([node22, dshBin, ...boot, '--no-open', '--port', '0'], {
      cwd: home.cwd,
      env: dshEnv(home.home, env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    const onData = (c: Buffer) => {
      out += c
      const m = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        resolve({
          url: m[1]!,
          child,
          output: () => out,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done()
              child.once('close', () => done())
              child.kill('SIGTERM')
              setTimeout(() => child.kill('SIGKILL'), 5000).unref()
            }),
        })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('close', (code) => reject(new Error(`dsh web exited (${code}) before serving:\n${out}`)))
    setTimeout(() => reject(new Error(`dsh web did not start:\n${out}`)), 60_000).unref()
  })
}

export interface LogEvent {
  type: string
  seq?: number
  data?: any
}

/** All session logs under `<home>/sessions` (plain JSONL, see TEST_HOME_PATCH), newest last. */
export function readSessionLogs(home: string): { file: string; events: LogEvent[] }[] {
  const found: { file: string; mtime: number }[] = []
  const walk = (dir: string) => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name === 'session.jsonl') found.push({ file: path, mtime: statSync(path).mtimeMs })
    }
  }
  walk(join(home, 'sessions'))
  return found
    .sort((a, b) => a.mtime - b.mtime)
    .map(({ file }) => ({
      file,
      events: readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogEvent),
    }))
}

/** The plugin's status route (`GET /bot-team/api/status`). */
export async function teamStatus(url: string): Promise<any> {
  const res = await fetch(`${url}/bot-team/api/status`)
  if (!res.ok) throw new Error(`status failed: ${res.status} ${await res.text()}`)
  return res.json()
}

/**
 * Wait until a fresh home's team is set up (30 s at most): the first Main Bot is made a moment
 * after DSH's plugin tree is up, and its activity line is recorded once its chat is open. A Bot
 * created before that may race the set-up (it can get a second chat), so tests wait for this.
 */
export async function untilTeamReady(url: string): Promise<any> {
  let status: any
  for (let i = 0; i < 300; i++) {
    status = await teamStatus(url)
    if (status.activity.some((a: any) => /created the first Main Bot/.test(a.text))) return status
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`the team was not set up after 30 s; last status: ${JSON.stringify(status)}`)
}

/** POST to DSH Web's own /api with its client-request envelope. */
export async function api(url: string, method: string, payload: unknown): Promise<any> {
  const res = await fetch(`${url}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: `r-${Math.random().toString(36).slice(2)}`, method, payload }),
  })
  const body = (await res.json()) as any
  if (!res.ok || body?.result?.ok === false) throw new Error(`${method} failed: ${res.status} ${JSON.stringify(body)}`)
  return body.result?.value ?? body
}

/** A Session's log as DSH Web's /api returns it. */
export async function sessionEvents(url: string, sessionId: string): Promise<any[]> {
  const history = await api(url, 'session.history', { sessionId, maxMessages: 1000 })
  return history.events.map((e: any) => e.event ?? e)
}

/** Poll a Session's log until `done(events)` holds (30 s at most). */
export async function untilEvents(url: string, sessionId: string, done: (events: any[]) => boolean, what: string): Promise<any[]> {
  for (let i = 0; i < 300; i++) {
    const events = await sessionEvents(url, sessionId)
    if (done(events)) return events
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what} in ${sessionId}`)
}

/** True once a turn ended after the user's last prompt. */
export function answeredLastPrompt(events: any[]): boolean {
  const prompted = events.findLastIndex((e: any) => e.type === 'user/message' && e.data?.source?.kind === 'user')
  return prompted >= 0 && events.slice(prompted).some((e: any) => e.type === 'turn/end')
}

/**
 * The model most e2e tests talk to: it calls `list_bots` when a Session offers it (a Bot's chat)
 * and answers with the tool's result; a plain Session gets a plain answer.
 */
export function listBotsScript(): Script {
  return {
    fallback: (req) => {
      const results = lastToolResults(req)
      if (results.length) return { text: `Tool said: ${results[0]!.text}` }
      return offersTool(req, 'list_bots') ? { toolCalls: [{ name: 'list_bots', args: {} }] } : { text: 'plain answer' }
    },
  }
}

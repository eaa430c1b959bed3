// bench/ui — the team sidebar inside DSH Web against DSH Web's own session list (issue 15), and
// the time a Bot's "working" status takes to reach the sidebar. Everything real but the model:
// the packed bundle installed with `dsh plugin add`, the `dsh` CLI serving DSH Web, Chromium.
//
// The team (BOTS Bots with the Main Bot, GROUPS groups) is built once per run the way a person
// builds it: Bots through the plugin's HTTP API (`POST /bot-team/api/bots`: each gets its own
// DSH Session and bootstrap turn), groups by the Main Bot's `manage_group` tool (the scripted model
// calls it GROUPS times in one turn; each group gets its room Session). That is BOTS + GROUPS
// real DSH Sessions; the set-up prints how long it took.
//
// Side by side in one run, alternating which goes first, ROUNDS rounds after one warm-up each
// (medians printed; each side keeps its browser profile, so both load warm):
//   team  DSH Web with the bundle (profile `web`): navigation → the team sidebar shows every
//         Bot and group
//   dsh   DSH Web without the bundle (a profile with DSH's web app only, on a copy of the same
//         home, so the same Sessions), its session browser in its "In one list" mode — its only
//         mode that shows every Session at once (grouped, it shows four and "Show 246 more"):
//         navigation → the list shows every Session
// Both are timed inside the page (a MutationObserver installed before any script of the page;
// `performance.now()` counts from the navigation's start): `bench/lib/ui-measure.ts`.
//
// Status push: SAMPLES prompts (DSH Web's `session.prompt`) to Bots' Sessions, cycling over a
// few Bots; the model holds each answer HOLD_MS so the Bot is surely working for a while. Each
// sample is the prompt call's start → the Bot's pill in the sidebar says "working". Each Bot
// gets one unmeasured prompt first: DSH loads a Session's agent on its first prompt since
// start (hundreds of ms, DSH's own cost with or without the bundle); those cold figures are
// printed on a detail line.
//
// Run: node bench/ui.ts [bots] [groups] [rounds] [samples]   (default 200 50 5 24)
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { buildAndPack } from '../scripts/pack.ts'
import { lastToolResults, lastUserText, offersTool, type Script } from '../scripts/scripted-model/format.ts'
import { startScriptedServer } from '../scripts/scripted-model/server.ts'
import { launchChromium } from '../tests/support/browser.ts'
import { api, initProfile, installBundle, makeHome, startWeb, untilTeamReady, WEB_APP_BUNDLES, type WebProcess } from '../tests/support/e2e.ts'
import { pushMs, untilIdle } from './lib/ui-measure.ts'
import { lapTimer, median, sideBySide } from './lib/ui-pair.ts'

const BOTS = Number(process.argv[2] ?? 200)
const GROUPS = Number(process.argv[3] ?? 50)
const ROUNDS = Number(process.argv[4] ?? 5)
const SAMPLES = Number(process.argv[5] ?? 24)
const HOLD_MS = 400
/** Bots the status samples cycle over. */
const PUSH_BOTS = Math.min(8, BOTS - 1)
/** Bots created at once through the API. */
const CREATE_AT_ONCE = 4
if (!(BOTS >= 3 && GROUPS >= 1 && ROUNDS >= 1 && SAMPLES >= 1)) throw new Error('usage: node bench/ui.ts [bots ≥ 3] [groups ≥ 1] [rounds ≥ 1] [samples ≥ 1]')

const TEAM_ENTRIES = '[data-testid="bt-team-sidebar"] [data-bot], [data-testid="bt-team-sidebar"] [data-group]'
const WORK = 'bench: start working'

const botName = (i: number) => `Bot${String(i).padStart(3, '0')}`
/** Group g's two members, spread over the team (never the Main Bot). */
const membersOf = (g: number) => [botName(1 + ((g * 3) % (BOTS - 1))), botName(1 + ((g * 3 + 1) % (BOTS - 1)))]

const script: Script = {
  fallback: (req) => {
    if (lastToolResults(req).length) return { text: 'done' }
    const said = lastUserText(req) ?? ''
    if (said === 'bench: make the groups' && offersTool(req, 'manage_group')) {
      return {
        toolCalls: Array.from({ length: GROUPS }, (_, g) => ({
          name: 'manage_group',
          args: { action: 'create', name: `Group${String(g + 1).padStart(2, '0')}`, members: membersOf(g) },
        })),
      }
    }
    if (said === WORK) return { text: 'working on it', delayMs: HOLD_MS }
    return { text: 'ok' }
  },
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * xs.length) - 1)]!

async function teamView(url: string): Promise<any> {
  const res = await fetch(`${url}/bot-team/api/team`)
  if (!res.ok) throw new Error(`GET /team: ${res.status}`)
  return res.json()
}

/** Create Bot001…Bot(BOTS-1) through the plugin's API, CREATE_AT_ONCE at a time. */
async function createBots(url: string): Promise<void> {
  let next = 1
  const worker = async () => {
    while (next < BOTS) {
      const i = next++
      const res = await fetch(`${url}/bot-team/api/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: botName(i), role: 'Engineer' }),
      })
      if (res.status !== 201) throw new Error(`creating ${botName(i)}: ${res.status} ${await res.text()}`)
    }
  }
  await Promise.all(Array.from({ length: CREATE_AT_ONCE }, worker))
}

/** The Main Bot creates the groups (one turn, GROUPS `manage_group` calls); wait until each has its room. */
async function createGroups(url: string): Promise<void> {
  const main = (await teamView(url)).bots.find((b: any) => b.main)
  await api(url, 'session.prompt', { sessionId: main.chatSessionId, mode: 'queue', content: [{ type: 'text', text: 'bench: make the groups' }] })
  for (let i = 0; i < 1200; i++) {
    const view = await teamView(url)
    if (view.groups.length >= GROUPS && view.groups.every((g: any) => g.roomSessionId)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`the groups were not created in 120 s: ${JSON.stringify((await teamView(url)).groups.map((g: any) => g.name))}`)
}

/** Wait until a restarted DSH Web serves the whole team again (60 s at most). */
async function untilTeamOpen(url: string, bots: number, groups: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const view = await teamView(url).catch(() => undefined)
    if (view?.mode === 'writer' && view.bots.length === bots && view.groups.length === groups) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the team did not open after a restart in 60 s')
}

const started: { stop(): Promise<void> }[] = []
const homes: string[] = []
try {
  const took = lapTimer()
  // The e2e smoke test hands over the tarball its global set-up packed.
  const tarball = process.env.BENCH_UI_TARBALL || buildAndPack().tarball
  const home = makeHome('bench-ui')
  homes.push(dirname(home.home))
  await installBundle('web', tarball, home)
  initProfile(home.home, 'plain', WEB_APP_BUNDLES)
  writeFileSync(
    join(home.home, 'profiles', 'web', 'cordis.patch.yml'),
    `- id: bot-team\n  config:\n    team:\n      maxBots: ${BOTS}\n      maxGroups: ${GROUPS}\n      createsPerTurn: 100\n`,
  )
  const installed = took()
  const model = await startScriptedServer(script)
  started.push({ stop: () => model.close() })
  const env = { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }
  let first: WebProcess | undefined = await startWeb(home, env)
  started.push(first)
  await untilTeamReady(first.url)
  const startTook = took()
  await createBots(first.url)
  const botsTook = took()
  await createGroups(first.url)
  const groupsTook = took()
  const sessions = (await api(first.url, 'session.list', {})).items.length
  await first.stop()
  first = undefined
  // The same home twice: one served with the bundle, a copy served without it.
  const plainHome = { home: join(mkdtempSync(join(tmpdir(), 'bench-ui-plain-')), 'home'), cwd: home.cwd }
  homes.push(dirname(plainHome.home))
  cpSync(home.home, plainHome.home, { recursive: true, verbatimSymlinks: true })
  const serve = (h: typeof home, profile?: string) =>
    startWeb(h, env, profile).then((w) => {
      started.push(w)
      return w
    })
  const [team, plain] = await Promise.all([serve(home), serve(plainHome, 'plain')])
  await untilTeamOpen(team.url, BOTS, GROUPS)
  console.log(
    `bench ui set-up: ${sessions} DSH Sessions; pack+install ${installed}, DSH Web start ${startTook}, ${BOTS - 1} Bots by POST /bots ${botsTook}, ${GROUPS} groups by manage_group ${groupsTook}, restart ${took()}`,
  )

  const browser = await launchChromium()
  started.push({ stop: () => browser.close() })
  const view = await teamView(team.url)
  const entries = view.bots.length + view.groups.length
  const {
    oursMs: teamMs,
    dshMs,
    oursTarget: teamTarget,
    dshTarget,
    oursPage: teamPage,
  } = await sideBySide(browser, { url: team.url, selector: TEAM_ENTRIES }, plain.url, ROUNDS, (shown, rows) => {
    if (shown !== entries) throw new Error(`the sidebar shows ${shown} entries, the team has ${entries}`)
    if (rows < sessions) throw new Error(`DSH's list shows ${rows} rows, there are ${sessions} Sessions`)
  })
  console.log(
    `bench ui loads: team_ms ${teamMs.map((ms) => ms.toFixed(0)).join(' ')} | dsh_ms ${dshMs.map((ms) => ms.toFixed(0)).join(' ')} (entries: team ${teamTarget}, dsh ${dshTarget} rows)`,
  )

  // Status push, on the page showing the whole team.
  const pushBots = view.bots.filter((b: any) => !b.main).slice(0, PUSH_BOTS)
  const cold: number[] = []
  for (const bot of pushBots) {
    cold.push((await pushMs(teamPage, team.url, bot.name, bot.chatSessionId, WORK)).total)
    await untilIdle(teamPage, bot.name)
  }
  const push: number[] = []
  const drawn: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const bot = pushBots[i % pushBots.length]
    const sample = await pushMs(teamPage, team.url, bot.name, bot.chatSessionId, WORK)
    push.push(sample.total)
    drawn.push(sample.drawn)
    await untilIdle(teamPage, bot.name)
  }
  console.log(
    `bench ui push: samples=${SAMPLES} p50_ms=${median(push).toFixed(0)} p95_ms=${percentile(push, 0.95).toFixed(0)} max_ms=${Math.max(...push).toFixed(0)}, of which the page drawing (team event → pill) p50_ms=${median(drawn).toFixed(0)} p95_ms=${percentile(drawn, 0.95).toFixed(0)}; first prompt of a Bot since DSH started (DSH loads its agent): median_ms=${median(cold).toFixed(0)} of ${cold.length}`,
  )

  const [t, d] = [median(teamMs), median(dshMs)]
  console.log(
    `bench ui: bots=${view.bots.length} groups=${view.groups.length} team_ms=${t.toFixed(0)} dsh_ms=${d.toFixed(0)} ratio=${(t / d).toFixed(2)} status_push_p95_ms=${percentile(push, 0.95).toFixed(0)}`,
  )
} finally {
  for (const s of started.reverse()) await s.stop().catch(() => {})
  for (const dir of homes) rmSync(dir, { recursive: true, force: true })
}

// bench/ui-board — the task board inside DSH Web against DSH Web's own session list, with TASKS
// tasks (run by `bench ui`: `npm run bench ui` runs every bench file whose name starts with `ui`).
// Everything real but the model: the packed bundle installed with `dsh plugin add`, the `dsh` CLI
// serving DSH Web, Chromium.
//
// Set-up, the way a person builds it: WORKERS Bots (`POST /bot-team/api/bots`), this client
// paired with the code DSH printed on its terminal, then TASKS tasks planned through
// `POST /bot-team/api/tasks` in plans of 50, spread over the Bots. Each is dispatched to a task
// Session of its Bot, where the scripted model hands it in (`submit_task`): TASKS task Sessions,
// every task in Review. The home is then copied, and in the copy the archived task Sessions are
// unarchived (DSH's registry-global archive set emptied), so DSH's own list shows them.
//
// Side by side in one run, alternating which goes first, ROUNDS rounds after one warm-up each
// (medians printed; each side keeps its browser profile, so both load warm):
//   board  DSH Web with the bundle at `/?bt-board` (the board opens with the page): navigation →
//          all TASKS cards drawn
//   dsh    DSH Web without the bundle on the copy, its session browser "In one list": navigation →
//          every row drawn
// Both timed inside the page (`bench/lib/ui-measure.ts`).
//
// Run: node bench/ui-board.ts [tasks] [rounds] [workers]   (default 500 5 8)
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { buildAndPack } from '../scripts/pack.ts'
import { lastToolResults, offersTool, type Script } from '../scripts/scripted-model/format.ts'
import { startScriptedServer } from '../scripts/scripted-model/server.ts'
import { launchChromium } from '../tests/support/browser.ts'
import { api, initProfile, installBundle, makeHome, startWeb, untilTeamReady, WEB_APP_BUNDLES, type WebProcess } from '../tests/support/e2e.ts'
import { pairWithTerminalCode } from '../tests/support/e2e-pairing.ts'
import { lapTimer, median, sideBySide } from './lib/ui-pair.ts'

const TASKS = Number(process.argv[2] ?? 500)
const ROUNDS = Number(process.argv[3] ?? 5)
const WORKERS = Number(process.argv[4] ?? 8)
if (!(TASKS >= 1 && TASKS <= 500 && ROUNDS >= 1 && WORKERS >= 1 && WORKERS <= 40))
  throw new Error('usage: node bench/ui-board.ts [tasks 1–500] [rounds ≥ 1] [workers 1–40]')

const CARDS = '[data-testid="bt-board"] [data-task]'
const PER_PLAN = 50

const script: Script = {
  fallback: (req) => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    if (lastToolResults(req).length) return { text: 'handed in' }
    return { toolCalls: [{ name: 'submit_task', args: { note: 'done' } }] }
  },
}

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(`${url}/bot-team/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

async function reviewCount(url: string): Promise<number> {
  const res = await fetch(`${url}/bot-team/api/tasks/board`)
  if (!res.ok) throw new Error(`GET /tasks/board: ${res.status}`)
  return ((await res.json()) as { cards: { status: string }[] }).cards.filter((c) => c.status === 'review').length
}

/** Empty DSH's registry-global archive set in every JSON storage unit of `home` that holds one. */
function unarchiveAll(home: string): number {
  let emptied = 0
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) visit(path)
      else if (name.endsWith('.json')) {
        const text = readFileSync(path, 'utf8')
        if (!text.includes('"archivedSessionIds"')) continue
        const doc = JSON.parse(text)
        const clear = (v: unknown): void => {
          if (!v || typeof v !== 'object') return
          for (const [k, x] of Object.entries(v)) {
            if (k === 'archivedSessionIds' && Array.isArray(x)) {
              emptied += x.length
              ;(v as Record<string, unknown>)[k] = []
            } else clear(x)
          }
        }
        clear(doc)
        writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`)
      }
    }
  }
  visit(join(home, 'storages'))
  return emptied
}

const started: { stop(): Promise<void> }[] = []
const homes: string[] = []
try {
  const took = lapTimer()
  const tarball = process.env.BENCH_UI_TARBALL || buildAndPack().tarball
  const home = makeHome('bench-ui-board')
  homes.push(dirname(home.home))
  await installBundle('web', tarball, home)
  initProfile(home.home, 'plain', WEB_APP_BUNDLES)
  writeFileSync(
    join(home.home, 'profiles', 'web', 'cordis.patch.yml'),
    `- id: bot-team\n  config:\n    team:\n      maxBots: ${WORKERS + 1}\n      botTurnsAtOnce: ${Math.min(WORKERS, 100)}\n`,
  )
  const installed = took()
  const model = await startScriptedServer(script)
  started.push({ stop: () => model.close() })
  const env = { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }
  let first: WebProcess | undefined = await startWeb(home, env)
  started.push(first)
  await untilTeamReady(first.url)
  const names = Array.from({ length: WORKERS }, (_, i) => `Worker${String(i + 1).padStart(2, '0')}`)
  for (const name of names) await post(first.url, '/bots', { name, role: 'Engineer' })
  const token = await pairWithTerminalCode(first)
  const botsTook = took()
  for (let from = 0; from < TASKS; from += PER_PLAN) {
    const tasks = Array.from({ length: Math.min(PER_PLAN, TASKS - from) }, (_, i) => {
      const n = from + i + 1
      return { title: `Task number ${n} of the bench`, brief: `Do step ${n} of the bench and hand it in.`, assignee: names[n % WORKERS] }
    })
    await post(first.url, '/tasks', { tasks }, { 'x-bot-team-pairing': token })
  }
  for (let i = 0; (await reviewCount(first.url)) < TASKS; i++) {
    if (i > 6000) throw new Error(`the tasks were not all in review in 10 min (${await reviewCount(first.url)} of ${TASKS})`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const tasksTook = took()
  const sessions = (await api(first.url, 'session.list', {})).items.length
  await first.stop()
  first = undefined
  const plainHome = { home: join(mkdtempSync(join(tmpdir(), 'bench-ui-board-plain-')), 'home'), cwd: home.cwd }
  homes.push(dirname(plainHome.home))
  cpSync(home.home, plainHome.home, { recursive: true, verbatimSymlinks: true })
  const unarchived = unarchiveAll(plainHome.home)
  if (unarchived < TASKS) throw new Error(`only ${unarchived} archived Sessions were found in the copy; the task Sessions are ${TASKS}`)
  const serve = (h: typeof home, profile?: string) =>
    startWeb(h, env, profile).then((w) => {
      started.push(w)
      return w
    })
  const [team, plain] = await Promise.all([serve(home), serve(plainHome, 'plain')])
  for (let i = 0; (await reviewCount(team.url).catch(() => 0)) < TASKS; i++) {
    if (i > 600) throw new Error('the task ledger did not open after a restart in 60 s')
    await new Promise((r) => setTimeout(r, 100))
  }
  console.log(
    `bench ui board set-up: ${sessions} DSH Sessions (${unarchived} unarchived in the copy); pack+install ${installed}, ${WORKERS} Bots and pairing ${botsTook}, ${TASKS} tasks planned and handed in ${tasksTook}, restart ${took()}`,
  )

  const browser = await launchChromium()
  started.push({ stop: () => browser.close() })
  const boardUrl = `${team.url}/?bt-board`
  const {
    oursMs: boardMs,
    dshMs,
    oursTarget: boardTarget,
    dshTarget,
  } = await sideBySide(browser, { url: boardUrl, selector: CARDS }, plain.url, ROUNDS, (cards, rows) => {
    if (cards !== TASKS) throw new Error(`the board shows ${cards} cards, there are ${TASKS} tasks`)
    if (rows < TASKS) throw new Error(`DSH's list shows ${rows} rows, there are ${TASKS} task Sessions`)
  })
  console.log(
    `bench ui board loads: board_ms ${boardMs.map((ms) => ms.toFixed(0)).join(' ')} | dsh_ms ${dshMs.map((ms) => ms.toFixed(0)).join(' ')} (cards ${boardTarget}, dsh rows ${dshTarget})`,
  )
  const [b, d] = [median(boardMs), median(dshMs)]
  console.log(`bench ui board: tasks=${TASKS} board_ms/dsh_ms=${(b / d).toFixed(2)} board_ms=${b.toFixed(0)} dsh_ms=${d.toFixed(0)} dsh_rows=${dshTarget}`)
} finally {
  for (const s of started.reverse()) await s.stop().catch(() => {})
  for (const dir of homes) rmSync(dir, { recursive: true, force: true })
}

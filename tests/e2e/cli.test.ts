// e2e (CLI): the packed bundle installed with `dsh plugin --profile headless add` into a temporary
// DSH_HOME, a headless `dsh` turn against the loopback scripted model, and the session log read
// back: the one-shot run's plain Session gets no team tools, and the run only follows team state.
// (Team tools are on Bot Sessions; the Web tier drives one.) Then the native-module trap on the
// real boot: a broken better-sqlite3 binary and a missing one must not take DSH down; the user
// gets one clear line naming the repair command. Each test has its own DSH_HOME (the second one
// breaks the native build in its copy).
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, offersTool, userTextsSinceLastAssistant } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { homeWithBundle, installBundle, makeHome, readSessionLogs, runDsh, type E2eHome, stderrBesidesTmpHome } from '../support/e2e.ts'
import { teamToolsIn } from '../support/team-tools.ts'

let model: ScriptedServer
let home: E2eHome
const env = () => ({ DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })

beforeEach(async () => {
  model = await startScriptedServer({
    fallback: (req) => {
      const results = lastToolResults(req)
      if (results.length) return { text: `Tool said: ${results[0]!.text}` }
      const asked = userTextsSinceLastAssistant(req).some((t) => t.includes('team'))
      return asked && offersTool(req, 'list_bots') ? { toolCalls: [{ name: 'list_bots', args: {} }] } : { text: 'Hello from the scripted model' }
    },
  })
  home = await homeWithBundle('cli', inject('bundleTarball'), [{ name: 'headless' }])
})
afterEach(async () => {
  await model?.close()
})

describe('dsh CLI with the bundle installed from its tarball', () => {
  it('dsh plugin add installs the bundle quietly: no missing-peer-dependency block for the packages DSH provides', async () => {
    const fresh = makeHome('cli-quiet')
    try {
      const r = await installBundle('web', inject('bundleTarball'), fresh)
      const said = `${r.stdout}\n${r.stderr}`
      expect(said).toContain('+ dsh-bot-team')
      expect(said).not.toMatch(/peer/i)
    } finally {
      rmSync(join(fresh.home, '..'), { recursive: true, force: true })
    }
  })

  it('runs a headless turn with the bundle loaded; its plain Session gets no team tools, and it writes no team state', async () => {
    const r = await runDsh(['--profile', 'headless', 'who is on the team?'], { ...home, env: env() })
    // A test home lies under /tmp, which the plugin warns of; nothing else is printed.
    expect(r.stderr).toContain(`${home.home} lies under /tmp`)
    expect(stderrBesidesTmpHome(r.stderr)).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('Hello from the scripted model')

    const log = readSessionLogs(home.home).at(-1)!
    expect(log.events.find((e) => e.type === 'turn/end')).toMatchObject({ data: { reason: { kind: 'completed' } } })
    const turn = model.model.loopRequests().at(-1)!
    expect(turn.toolNames.length).toBeGreaterThan(0) // DSH's own tools are offered…
    expect(await teamToolsIn(turn.toolNames)).toEqual([]) // …none of the team's (derived from what the plugin registers)
    expect(turn.system).not.toContain('a long-lived Bot on a team of Bots')
    // The plugin did load: it opened the archive index in the team folder…
    expect(existsSync(join(home.home, 'bot', 'archive.sqlite'))).toBe(true)
    // …but a one-shot headless run opens the team as a follower: no lock, no state written, no Main Bot.
    expect(readdirSync(join(home.home, 'bot')).filter((f) => f.startsWith('state'))).toEqual([])
  })

  it('keeps DSH working when better-sqlite3 cannot load, with one clear line naming the fix', async () => {
    const addon = join(home.home, 'profiles', 'headless', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')
    expect(existsSync(addon)).toBe(true)

    // 1. a binary that cannot be loaded (as a build for another Node ABI): ERR_DLOPEN_FAILED
    writeFileSync(addon, 'not an ELF file')
    const broken = await runDsh(['--profile', 'headless', 'who is on the team?'], { ...home, env: env() })
    expect(broken.code).toBe(0)
    expect(broken.stdout.trim()).toBe('Hello from the scripted model')
    const brokenLines = broken.stderr.split('\n').filter((l) => l.includes('better-sqlite3'))
    expect(brokenLines).toHaveLength(1)
    expect(brokenLines[0]).toContain('dsh plugin --profile headless rebuild better-sqlite3')
    expect(broken.stderr).not.toMatch(/\n\s+at /) // no stack trace

    // 2. the build skipped entirely (pnpm ignored the build script): no binding at all
    rmSync(join(home.home, 'profiles', 'headless', 'node_modules', 'better-sqlite3', 'build'), { recursive: true, force: true })
    const missing = await runDsh(['--profile', 'headless', 'who is on the team?'], { ...home, env: env() })
    expect(missing.code).toBe(0)
    expect(missing.stdout.trim()).toBe('Hello from the scripted model')
    const missingLines = missing.stderr.split('\n').filter((l) => l.includes('better-sqlite3'))
    expect(missingLines).toHaveLength(1)
    expect(missingLines[0]).toContain('without its native build')
    expect(missingLines[0]).toContain('npm_config_nodedir=')
  })
})

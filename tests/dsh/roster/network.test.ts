// The person's network switch per Bot, on DSH's real sandbox (sandbox-local: Landlock on these
// machines), real bash tool and real web server in-process: from a no-network Bot's shell, DSH's
// `/api` (a stand-in route on the same server) and the plugin's routes are unreachable, DSH_WEB_URL
// is unset and the workspace is writable; a normal Bot on the same team is unchanged. The switch
// caps the Bot at workspace-write and refuses what would leave the namespace.
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, type Rule } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'
import { bash } from '../secrets/helpers.ts'

const track = disposedAfterEach()

/** What the probe command prints: each route's status line (or "unreachable"), DSH_WEB_URL, the write. */
const probe = (port: number, file: string) =>
  [
    `for p in /api/ping /bot-team/api/status; do (exec 3<>/dev/tcp/127.0.0.1/${port} && printf "GET $p HTTP/1.0\\r\\nHost: 127.0.0.1:${port}\\r\\n\\r\\n" >&3 && head -1 <&3 | tr -d '\\r') 2>/dev/null || echo "unreachable $p"; done`,
    'echo "web=${DSH_WEB_URL-unset}"',
    `touch ${file} && echo wrote`,
  ].join('; ')

interface NetTeam {
  host: DshHost
  port: number
  /** The Bot's bash results for one "PROBE" prompt. */
  probeFrom(name: string): Promise<string>
}

async function netTeam(extra: Record<string, { fallback: Rule }> = {}): Promise<NetTeam> {
  let port = 0
  const prober: Rule = (req) => {
    if (lastToolResults(req).length) return { text: 'done' }
    const text = lastUserText(req) ?? ''
    const file = /PROBE (\S+)/.exec(text)?.[1]
    return file ? bash(probe(port, file)) : { text: 'ok' }
  }
  const host = track(
    await startTeamHost({ mock: { fallback: { text: 'ok' } }, nia: { fallback: prober }, ned: { fallback: prober }, ...extra }, { shell: true }),
  )
  await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
  port = host.ctx.webServer.port
  // A stand-in for DSH Web's own /api on the same server, and its DSH_WEB_URL in every shell.
  host.ctx.effect(() =>
    host.ctx.webServer.register({
      kind: 'prefix',
      path: '/api',
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('pong')
      },
    }),
  )
  host.ctx.shellEnv.register({
    name: 'web-app-standin',
    variables: { DSH_WEB_URL: { description: 'the DSH Web URL' } },
    resolve: () => ({ DSH_WEB_URL: `http://127.0.0.1:${port}` }),
  })
  await host.ctx.botRoster.create(user, { name: 'Nia', model: 'mock/nia' })
  await host.ctx.botRoster.create(user, { name: 'Ned', model: 'mock/ned' })
  await until(() => host.ctx.botRoster.networkSwitch().state !== 'checking')
  return {
    host,
    port,
    async probeFrom(name) {
      const bot = host.ctx.botRoster.find(name)!
      const agent = await host.ctx.botRoster.agentOf(bot.id)
      const before = toolResults(agent, 'bash').length
      userPrompt(agent, `PROBE ${name.toLowerCase()}-wrote.txt`)
      await quiesce(host)
      return toolResults(agent, 'bash').slice(before).join('\n')
    },
  }
}

/** Wait for a condition that an event elsewhere makes true (the probe's child process ending). */
async function until(holds: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!holds()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setImmediate(r))
  }
}

describe("a Bot's network switch", () => {
  it('probes at start-up on this machine: unshare --net with the sandbox runner inside it works (only the loopback device is left)', async () => {
    const { host } = await netTeam()
    expect(host.ctx.botRoster.networkSwitch()).toEqual({ state: 'ready', unshare: expect.stringMatching(/\/unshare$/) })
  })

  it("a no-network Bot's shell reaches neither DSH's /api nor the plugin's routes and has no DSH_WEB_URL, its workspace is writable; a normal Bot is unchanged", async () => {
    const { host, probeFrom } = await netTeam()
    const workspace = join(host.home, 'bot', 'workspace')
    // Both reach everything while the network is on.
    expect(await probeFrom('Nia')).toMatch(/^HTTP\/1\.1 200 OK\nHTTP\/1\.1 200 OK\nweb=http:\/\/127\.0\.0\.1:\d+\nwrote/)
    await host.ctx.botRoster.setNetwork(user, 'Nia', false)
    expect(host.ctx.botRoster.find('Nia')!.noNetwork).toBe(true)
    expect(await probeFrom('Nia')).toMatch(/^unreachable \/api\/ping\nunreachable \/bot-team\/api\/status\nweb=unset\nwrote/)
    expect(existsSync(join(workspace, 'nia-wrote.txt'))).toBe(true)
    expect(await probeFrom('Ned')).toMatch(/^HTTP\/1\.1 200 OK\nHTTP\/1\.1 200 OK\nweb=http:\/\/127\.0\.0\.1:\d+\nwrote/)
    expect(existsSync(join(workspace, 'ned-wrote.txt'))).toBe(true)
    // Switched back on, Nia reaches them again.
    await host.ctx.botRoster.setNetwork(user, 'Nia', true)
    expect(await probeFrom('Nia')).toMatch(/^HTTP\/1\.1 200 OK\nHTTP\/1\.1 200 OK/)
  })

  it('caps the Bot at workspace-write: switching it off lowers danger-full-access, a raise is refused while off; only the person switches it', async () => {
    const { host } = await netTeam()
    await host.ctx.botRoster.update(user, 'Nia', { permissionPreset: 'danger-full-access' })
    await host.ctx.botRoster.setNetwork(user, 'Nia', false)
    expect(host.ctx.botRoster.find('Nia')!.permissionPreset).toBe('workspace-write')
    await expect(host.ctx.botRoster.update(user, 'Nia', { permissionPreset: 'danger-full-access' })).rejects.toThrow(/caps it at workspace-write/)
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const mainSession = main.sessionParts.at(-1)!.sessionId
    await expect(host.ctx.botRoster.setNetwork({ kind: 'bot', sessionId: mainSession }, 'Ned', false)).rejects.toThrow(/Only the person/)
    expect(host.ctx.botRoster.find('Ned')!.noNetwork).toBeUndefined()
  })

  it('refuses web_fetch and a bash escalation to danger-full-access for a no-network Bot, before anything runs', async () => {
    let calls = 0
    const asks: Rule = (req) => {
      if (lastToolResults(req).length) return { text: 'done' }
      return lastUserText(req)?.includes('GO')
        ? {
            toolCalls: [
              { name: 'web_fetch', args: { url: 'http://127.0.0.1/' } },
              { name: 'bash', args: { command: 'echo out', description: 'x', sandbox_permissions: 'danger-full-access', justification: 'needs it' } },
            ],
          }
        : { text: 'ok' }
    }
    const { host } = await netTeam({ nia: { fallback: asks } })
    host.ctx.tools.register(
      defineTool({
        name: 'web_fetch',
        description: 'stand-in for DSH web_fetch',
        parameters: { url: { type: 'string' } },
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        async execute() {
          calls++
          return 'fetched'
        },
      }),
    )
    await host.ctx.botRoster.setNetwork(user, 'Nia', false)
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Nia')!.id)
    userPrompt(agent, 'GO')
    await quiesce(host)
    expect(toolResults(agent)).toEqual([
      expect.stringMatching(/Refused: Nia works without network .* web_fetch is not available to it/),
      expect.stringMatching(/Refused: Nia works without network .* cannot leave the sandbox/),
    ])
    expect(calls).toBe(0)
  })

  it("a live Session's folder swapped for a link to bot/ mid-life: its next shell command is refused before it runs, nothing written there", async () => {
    const { host, probeFrom } = await netTeam()
    const folder = join(host.home, 'bot', 'workspace', 'nia')
    mkdirSync(folder)
    const nia = host.ctx.botRoster.find('Nia')!
    await host.ctx.botRoster.update(user, nia.id, { workFolder: folder })
    await host.ctx.botRoster.openOwnChat(nia.id, { endReason: 'test: into the folder', note: 'context/none.md' })
    expect(await probeFrom('Nia')).toMatch(/wrote\n?$/)
    rmSync(folder, { recursive: true })
    symlinkSync(join(host.home, 'bot'), folder)
    expect(await probeFrom('Nia')).toMatch(/Bot Team refused this command: .*nia lies in the team workspace but now resolves to .*bot, outside it/)
    expect(existsSync(join(host.home, 'bot', 'nia-wrote.txt'))).toBe(false)
  })
})

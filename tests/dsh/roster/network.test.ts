// A Bot's network level, on DSH's real sandbox (sandbox-local: Landlock on these machines), the real
// bash tool and a real web server in-process: at the default `internet` a Bot's shell reaches
// neither DSH's `/api` (a stand-in route on the same server) nor the plugin's routes on loopback,
// has no DSH_WEB_URL, runs as a non-zero uid with no capability and writes its workspace; at `none`
// it has only its loopback; at `full` it reaches both. Levels cap the preset; only the person sets one.
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, type Rule } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import { quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'
import { bash } from '../secrets/helpers.ts'

const track = disposedAfterEach()

/** What the probe command prints: each route's status line (or "unreachable"), DSH_WEB_URL, the devices, uid and capabilities, the write. */
const probe = (port: number, file: string) =>
  [
    `for p in /api/ping /bot-team/api/status; do (exec 3<>/dev/tcp/127.0.0.1/${port} && printf "GET $p HTTP/1.0\\r\\nHost: 127.0.0.1:${port}\\r\\n\\r\\n" >&3 && head -1 <&3 | tr -d '\\r') 2>/dev/null || echo "unreachable $p"; done`,
    'echo "web=${DSH_WEB_URL-unset}"',
    `echo "devices=$(tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ,)"`,
    `echo "uid=$(id -u) caps=$(grep CapEff /proc/self/status | cut -f2)"`,
    `touch ${file} && echo wrote`,
  ].join('; ')

interface NetTeam {
  host: DshHost
  port: number
  /** The Bot's bash results for one "PROBE" prompt. */
  probeFrom(name: string): Promise<string>
}

async function netTeam(extra: Record<string, { fallback: Rule }> = {}, options: Partial<TeamHostOptions> = {}): Promise<NetTeam> {
  let port = 0
  const prober: Rule = (req) => {
    if (lastToolResults(req).length) return { text: 'done' }
    const text = lastUserText(req) ?? ''
    const file = /PROBE (\S+)/.exec(text)?.[1]
    return file ? bash(probe(port, file)) : { text: 'ok' }
  }
  const host = track(
    await startTeamHost({ mock: { fallback: { text: 'ok' } }, nia: { fallback: prober }, ned: { fallback: prober }, ...extra }, { shell: true, ...options }),
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
  await host.ctx.botNetwork.whenProbed()
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

const CUT_OFF = /^unreachable \/api\/ping\nunreachable \/bot-team\/api\/status\nweb=unset\n/
const REACHES = /^HTTP\/1\.1 200 OK\nHTTP\/1\.1 200 OK\nweb=http:\/\/127\.0\.0\.1:\d+\n/

describe("a Bot's network level", () => {
  it('probes at start-up on this machine: a namespace set at internet with the sandbox runner inside it works', async () => {
    const { host } = await netTeam()
    expect(host.ctx.botRoster.networkProbe()).toMatchObject({ state: 'ready' })
  })

  it("a default Bot (internet) reaches neither DSH's /api nor the plugin's routes, has lo and tap0, a non-zero uid, no capability, and writes its workspace", async () => {
    const { host, probeFrom } = await netTeam()
    expect(host.ctx.botRoster.find('Nia')!.network).toBe('internet')
    const out = await probeFrom('Nia')
    expect(out).toMatch(CUT_OFF)
    expect(out).toMatch(/\ndevices=lo,tap0,\n/)
    expect(out).toMatch(/\nuid=[1-9]\d* caps=0000000000000000\n/)
    expect(out).toMatch(/wrote\n?$/)
    expect(existsSync(join(host.home, 'bot', 'workspace', 'nia-wrote.txt'))).toBe(true)
  })

  it('at none a Bot has only its loopback; at full it reaches both routes with DSH_WEB_URL; a Bot at internet beside them is unchanged', async () => {
    const { host, probeFrom } = await netTeam()
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'none')
    const none = await probeFrom('Nia')
    expect(none).toMatch(CUT_OFF)
    expect(none).toMatch(/\ndevices=lo,\n/)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'full')
    expect(await probeFrom('Nia')).toMatch(REACHES)
    expect(await probeFrom('Ned')).toMatch(CUT_OFF)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'internet')
    expect(await probeFrom('Nia')).toMatch(CUT_OFF)
  })

  it('internet and none cap the Bot at workspace-write: setting one lowers danger-full-access, raising the preset to it means full; only the person sets a level', async () => {
    const { host } = await netTeam()
    await host.ctx.botRoster.update(user, 'Nia', { permissionPreset: 'danger-full-access' })
    expect(host.ctx.botRoster.find('Nia')!.network).toBe('full')
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'internet')
    expect(host.ctx.botRoster.find('Nia')!.permissionPreset).toBe('workspace-write')
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'none')
    expect(host.ctx.botRoster.find('Nia')!).toMatchObject({ permissionPreset: 'workspace-write', network: 'none' })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const mainSession = main.sessionParts.at(-1)!.sessionId
    await expect(host.ctx.botRoster.setNetwork({ kind: 'bot', sessionId: mainSession }, 'Ned', 'full')).rejects.toThrow(/Only the person/)
    expect(host.ctx.botRoster.find('Ned')!.network).toBe('internet')
  })

  it('refuses web_fetch at none, a web_fetch of loopback or a name resolving to it at internet, and a bash escalation to danger-full-access, before anything runs', async () => {
    let calls = 0
    const asks: Rule = (req) => {
      if (lastToolResults(req).length) return { text: 'done' }
      return lastUserText(req)?.includes('GO')
        ? {
            toolCalls: [
              { name: 'web_fetch', args: { url: 'http://127.0.0.1/' } },
              { name: 'web_fetch', args: { url: 'http://localhost:8080/x' } },
              { name: 'web_fetch', args: { url: 'http://[::1]/' } },
              { name: 'web_fetch', args: { url: 'http://169.254.169.254/latest/meta-data/' } },
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
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Nia')!.id)
    userPrompt(agent, 'GO')
    await quiesce(host)
    expect(toolResults(agent)).toEqual([
      expect.stringMatching(/Refused: Nia's network is "internet" .* web_fetch may not reach 127\.0\.0\.1/),
      expect.stringMatching(/Refused: Nia's network is "internet" .* web_fetch may not reach localhost/),
      expect.stringMatching(/Refused: Nia's network is "internet" .* web_fetch may not reach ::1/),
      expect.stringMatching(/Refused: Nia's network is "internet" .* web_fetch may not reach 169\.254\.169\.254/),
      expect.stringMatching(/Refused: Nia's network is "internet" .* cannot leave the sandbox/),
    ])
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'none')
    userPrompt(agent, 'GO')
    await quiesce(host)
    expect(toolResults(agent).slice(5, 6)).toEqual([expect.stringMatching(/Refused: Nia's network is "none" .* web_fetch is not available to it/)])
    expect(calls).toBe(0)
  })

  it("with the probe's programs hidden, a default Bot's command is refused with one plain message naming the fix; a Bot at full still runs", async () => {
    const { host, probeFrom } = await netTeam({}, { config: { network: { programDirs: [join('/nonexistent', 'bin')], refreshSeconds: 0 } } })
    const probeResult = host.ctx.botRoster.networkProbe()
    expect(probeResult).toMatchObject({ state: 'unavailable', reason: expect.stringMatching(/lacks unshare, nsenter, slirp4netns, nft/) })
    const nia = host.ctx.botRoster.find('Nia')!
    expect(host.ctx.botRoster.networkProblem(nia)).toMatch(
      /^Nia's shell commands are refused: its network is "internet", and this machine cannot give it a network of its own \(.*\)\. Fix: install .*slirp4netns.*nftables.*; or set Nia's network to "full" on the team page\.$/,
    )
    expect(await probeFrom('Nia')).toMatch(/Refused: Nia's shell commands are refused: .*Fix: install/)
    expect(existsSync(join(host.home, 'bot', 'workspace', 'nia-wrote.txt'))).toBe(false)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'full')
    expect(await probeFrom('Nia')).toMatch(REACHES)
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

  it("a default Bot's shell cannot regain a capability, escape the filter or find the machine's sockets: every attack fails", async () => {
    const { createServer } = await import('node:net')
    const { mkdtempSync } = await import('node:fs')
    const { networkInterfaces, tmpdir } = await import('node:os')
    // A socket bound on the machine before the Bot's first command (an agent, a tmux server, …).
    const sockDir = mkdtempSync(join(tmpdir(), 'bot-team-sock-'))
    const sock = join(sockDir, 'agent.sock')
    const server = createServer((c) => c.end('hello'))
    await new Promise<void>((r) => server.listen(sock, r))
    const web = createServer((c) => c.end('HTTP/1.0 200 OK\r\n\r\nhost'))
    await new Promise<void>((r) => web.listen(0, '0.0.0.0', r))
    const port = (web.address() as { port: number }).port
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address
    try {
      const tcp = (name: string, host: string, p: number) =>
        `(timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${p}' 2>/dev/null && echo "${name}: open") || echo "${name}: closed"`
      const attack = [
        `ip link set tap0 down 2>/dev/null; echo "link-down: $?"`,
        `nft flush ruleset 2>/dev/null; echo "nft-flush: $?"`,
        `umount /run/user 2>/dev/null; echo "umount: $?"`,
        // A user namespace of its own gives capabilities there only: the covers are locked, its network is empty.
        `unshare -Urm sh -c 'umount /run/user' 2>/dev/null; echo "nested-umount: $?"`,
        `unshare -Urn bash -c 'ip link set lo up; exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null; echo "nested-net: $?"`,
        `echo "caps: $(grep CapEff /proc/self/status | cut -f2) nnp: $(grep NoNewPrivs /proc/self/status | cut -f2)"`,
        `[ -e /proc/${process.pid}/status ] && echo "dsh-visible: yes" || echo "dsh-visible: no"`,
        tcp('slirp-host-loopback', '10.0.2.2', port),
        tcp('slirp-dns-other-port', '10.0.2.3', 80),
        tcp('loopback-port', '127.0.0.1', port),
        ...(own ? [tcp('own-address', own, port)] : []),
        tcp('metadata', '169.254.169.254', 80),
        `node -e "require('net').connect('${sock}').on('connect',()=>{console.log('socket: open');process.exit()}).on('error',e=>{console.log('socket: '+e.code);process.exit()})"`,
      ].join('; ')
      let out = ''
      const rule: Rule = (req) => (lastToolResults(req).length ? { text: 'done' } : lastUserText(req)?.includes('ATTACK') ? bash(attack) : { text: 'ok' })
      const { host } = await netTeam({ nia: { fallback: rule } })
      const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Nia')!.id)
      userPrompt(agent, 'ATTACK')
      await quiesce(host)
      out = toolResults(agent, 'bash').join('\n')
      const lines = Object.fromEntries(out.split('\n').flatMap((l) => (/^([\w-]+): (.*)$/.exec(l) ? [[l.split(': ')[0]!, l.slice(l.indexOf(': ') + 2)]] : [])))
      expect(lines).toMatchObject({
        'link-down': expect.stringMatching(/^[1-9]/),
        'nft-flush': expect.stringMatching(/^[1-9]/),
        umount: expect.stringMatching(/^[1-9]/),
        'nested-umount': expect.stringMatching(/^[1-9]/),
        'nested-net': expect.stringMatching(/^[1-9]/),
        caps: '0000000000000000 nnp: 1',
        'dsh-visible': 'no',
        'slirp-host-loopback': 'closed',
        'slirp-dns-other-port': 'closed',
        'loopback-port': 'closed',
        metadata: 'closed',
        socket: expect.stringMatching(/^(ENOENT|ECONNREFUSED)$/),
        ...(own ? { 'own-address': 'closed' } : {}),
      })
    } finally {
      server.close()
      web.close()
      rmSync(sockDir, { recursive: true, force: true })
    }
  })

  it('delegation never widens the network: a Bot at none that messages a Bot at internet gets its turn run at none', async () => {
    let port = 0
    const sender: Rule = (req) =>
      lastToolResults(req).length
        ? { text: 'sent' }
        : lastUserText(req)?.includes('DELEGATE')
          ? { toolCalls: [{ name: 'message_bot', args: { to: 'Ned', message: 'PROBE ned-delegated.txt' } }] }
          : { text: 'ok' }
    const { host, port: p } = await netTeam({ nia: { fallback: sender } })
    port = p
    expect(port).toBeGreaterThan(0)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'none')
    const nia = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Nia')!.id)
    const ned = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Ned')!.id)
    userPrompt(nia, 'DELEGATE')
    await quiesce(host)
    const out = toolResults(ned, 'bash').join('\n')
    expect(out).toMatch(/\ndevices=lo,\n/)
    // Ned's own turn, opened by the person, runs at his own level again.
    userPrompt(ned, 'PROBE ned-own.txt')
    await quiesce(host)
    expect(toolResults(ned, 'bash').at(-1)).toMatch(/\ndevices=lo,tap0,\n/)
  })

  it("a change to full ends the Bot's running background job, with a notice in its chat; internet ↔ none keeps it running", async () => {
    const job: Rule = (req) =>
      lastToolResults(req).length
        ? { text: 'started' }
        : lastUserText(req)?.includes('JOB')
          ? { toolCalls: [{ name: 'bash', args: { command: 'sleep 600', description: 'a long job', run_in_background: true } }] }
          : { text: 'ok' }
    const { host } = await netTeam({ nia: { fallback: job } }, { shell: 'background' })
    const nia = host.ctx.botRoster.find('Nia')!
    const agent = await host.ctx.botRoster.agentOf(nia.id)
    userPrompt(agent, 'JOB')
    await quiesce(host)
    const running = () => host.ctx.jobs.list(agent).filter((j) => j.status === 'running').length
    expect(running()).toBe(1)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'none')
    expect(running()).toBe(1)
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'full')
    await until(() => running() === 0)
    const notice = agent.session.events.filter((e) => JSON.stringify(e.data).includes('"network-notice"'))
    expect(JSON.stringify(notice.at(-1)?.data)).toMatch(/changed your network from \\"none\\" to \\"full\\".*background jobs were ended \(1\)/)
  })

  it("a Bot's leftover daemon (setsid) ends with its namespaces: on a change to full, and on its deletion", async () => {
    const daemon: Rule = (req) =>
      lastToolResults(req).length
        ? { text: 'done' }
        : lastUserText(req)?.includes('DAEMON')
          ? bash('setsid sh -c "exec sleep 987" </dev/null >/dev/null 2>&1 & echo started')
          : { text: 'ok' }
    const { host } = await netTeam({ nia: { fallback: daemon }, ned: { fallback: daemon } })
    /** Host pids of `sleep 987` processes inside a network namespace. */
    const sleepers = (netId: string | undefined) =>
      readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000987\u0000' && readlinkSync(`/proc/${pid}/ns/net`) === netId
          } catch {
            return false
          }
        })
    const start = async (name: string) => {
      const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find(name)!.id)
      userPrompt(agent, 'DAEMON')
      await quiesce(host)
      const id = host.ctx.botNetwork.netIdOf(`bot:${host.ctx.botRoster.find(name)!.id}`, 'internet')
      expect(sleepers(id)).toHaveLength(1)
      return id
    }
    const niaNet = await start('Nia')
    await host.ctx.botRoster.setNetwork(user, 'Nia', 'full')
    await until(() => sleepers(niaNet).length === 0)
    const nedNet = await start('Ned')
    await host.ctx.botRoster.delete(user, 'Ned', 'the test is over')
    await until(() => sleepers(nedNet).length === 0)
    expect(host.ctx.botNetwork.netIdOf(`bot:${host.ctx.botRoster.bots().find((b) => b.name === 'Nia')!.id}`, 'internet')).toBeUndefined()
  })
})

/** Wait for a condition an event elsewhere makes true (the kernel ending processes), one turn of the loop at a time. */
async function until(holds: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!holds()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setImmediate(r))
  }
}

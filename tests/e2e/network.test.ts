// e2e (Bots' networks): the real `dsh web` with the packed bundle and DSH's real sandbox, run as a
// child inside an outer user + network + mount namespace of the test's (`outer-ns.ts`), whose veth
// pair leads to an inner "internet" host at a TEST-NET address. From a Bot's own shell (its bash
// tool, driven by the scripted model), then from a task Session and a member Session of that Bot:
// DSH's /api (`session.prompt` into another Bot's chat), the plugin's routes, a server on the outer
// namespace's 127.0.0.1 and one on its own non-loopback address, the inner internet server and an
// ssh agent's socket. As root of the outer namespace the Bot's `ip link set … down` and `umount` fail.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { node22, toolEnv } from '../../scripts/pack.ts'
import { PAIRING_HEADER } from '../../src/web/pairing.ts'
import { api, homeWithBundle, sessionEvents, startWeb, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'
import { privateBubblewrap } from '../support/bubblewrap.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { INTERNET_ADDRESS, launchChromiumInside, lineFrom, OUTER_ADDRESS, outerNamespace, type OuterNs } from '../support/outer-ns.ts'

const PROBE = fileURLToPath(new URL('../support/net-probe.ts', import.meta.url))
const SERVERS = fileURLToPath(new URL('../support/outer-ns-servers.ts', import.meta.url))

/** One scene: the outer namespace, its servers and ssh agent, the model, `dsh web` inside, paired, Bots Nia and Ned. */
interface Scene {
  url: string
  /** DSH Web's URL inside the outer namespace (for a browser there). */
  inner: string
  token: string
  outer: OuterNs
  home: E2eHome
  model: ScriptedServer
  send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  ownSession(name: string): string
  botId(name: string): string
  prompt(sessionId: string, text: string): Promise<unknown>
  /** The probe's output for a label, once the Bot's bash tool returned it: target → "ok …" / "fail …", and the exit codes. */
  probeResult(label: string): Promise<Record<string, string>>
  /** Whether Ned's chat got the message a probe tried to put there through DSH's /api. */
  nedGot(label: string): Promise<boolean>
}

async function scene(opts: { pathFirst?: string } = {}): Promise<Scene> {
  const outer: OuterNs = await outerNamespace()
  onTestFinished(() => outer.close())
  let targets = ''
  /** The Bot's command for one probe: the targets, then (not at full) the two privileged commands. */
  const probeCommand = (label: string) => {
    const privileged = label.startsWith('full')
      ? ''
      : '; ip link set lo down 2>/dev/null; echo "ip-link-down: exit $?"; umount /etc/resolv.conf 2>/dev/null; echo "umount: exit $?"'
    // Under bwrap (DSH's profile at workspace-write) /tmp is a fresh tmpfs; under Landlock it is the machine's.
    const tmp = label.startsWith('bwrap') ? '; echo "tmp-fs: $(stat -f -c %T /tmp)"' : ''
    return `echo LABEL=${label}; ${node22} ${PROBE} '${targets.replaceAll('LABEL', label)}'${privileged}${tmp}`
  }
  const script = (req: RecordedRequest): Reply => {
    if (lastToolResults(req).length) return { text: 'done' }
    const label = /PROBE (\S+)/.exec(userTextsSinceLastAssistant(req).join('\n'))?.[1]
    return label ? { toolCalls: [{ name: 'bash', args: { command: probeCommand(label), description: 'probe the network' } }] } : { text: 'ok' }
  }
  const model = await startScriptedServer({ fallback: script })
  onTestFinished(() => model.close())
  const modelPort = await outer.carryIn(Number(new URL(model.url).port))
  const [, loopbackPort, anyPort] = await lineFrom(
    outer.spawn([node22, SERVERS], { stdio: ['ignore', 'pipe', 'pipe'] }),
    /servers (\d+) (\d+)/,
    'the outer servers',
  )
  await lineFrom(outer.spawnInternet([node22, SERVERS, 'internet'], { stdio: ['ignore', 'pipe', 'pipe'] }), /internet 80/, 'the internet server')
  // A real ssh agent inside the outer namespace; DSH (and so every Bot's shell) has its socket in SSH_AUTH_SOCK.
  const agentDir = mkdtempSync(join(tmpdir(), 'ssh-bot-team-'))
  onTestFinished(() => rmSync(agentDir, { recursive: true, force: true }))
  const agentSock = join(agentDir, 'agent.sock')
  await lineFrom(outer.spawn(['ssh-agent', '-D', '-a', agentSock], { stdio: ['ignore', 'pipe', 'pipe'] }), /SSH_AUTH_SOCK/, 'ssh-agent')
  const home = await homeWithBundle('network', inject('bundleTarball'), [{ name: 'web' }])
  const web: WebProcess = await startWeb(
    home,
    {
      DEEPSEEK_BASE_URL: model.url.replace(/:\d+/, `:${modelPort}`),
      DEEPSEEK_API_KEY: 'mock-key',
      SSH_AUTH_SOCK: agentSock,
      ...(opts.pathFirst ? { PATH: `${opts.pathFirst}:${toolEnv().PATH}` } : {}),
    },
    'web',
    (argv, options) => outer.spawn(argv, options),
  )
  onTestFinished(() => web.stop())
  const dshPort = new URL(web.url).port
  const url = await outer.expose(Number(dshPort))
  await untilTeamReady(url)
  const token = await pairWithTerminalCode({ ...web, url })
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/bot-team/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', [PAIRING_HEADER]: token },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, body: JSON.parse(await res.text()) }
  }
  const bots = () => Object.values(JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8')).bots as Record<string, any>)
  const ownSession = (name: string) =>
    bots()
      .find((b) => b.name === name)
      .sessionParts.at(-1).sessionId as string
  expect((await send('POST', '/bots', { name: 'Nia' })).status).toBe(201)
  expect((await send('POST', '/bots', { name: 'Ned' })).status).toBe(201)
  const ned = ownSession('Ned')
  targets = JSON.stringify([
    {
      name: 'dsh-api-prompt',
      url: `http://127.0.0.1:${dshPort}/api/session.prompt`,
      body: {
        type: 'client-request',
        rpcId: 'r-LABEL',
        method: 'session.prompt',
        payload: { sessionId: ned, mode: 'queue', content: [{ type: 'text', text: 'INJECTED by LABEL' }] },
      },
    },
    { name: 'plugin-routes', url: `http://127.0.0.1:${dshPort}/bot-team/api/status` },
    { name: 'loopback-server', url: `http://127.0.0.1:${loopbackPort}/` },
    { name: 'outer-address-server', url: `http://${OUTER_ADDRESS}:${anyPort}/` },
    { name: 'internet-server', url: `http://${INTERNET_ADDRESS}/` },
    { name: 'ssh-agent', unix: agentSock },
  ])
  return {
    url,
    inner: web.url,
    token,
    outer,
    home,
    model,
    send,
    ownSession,
    botId: (name) => bots().find((b) => b.name === name).id,
    prompt: (sessionId, text) => api(url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] }),
    async probeResult(label) {
      for (let i = 0; i < 600; i++) {
        for (const req of model.requests) {
          for (const r of lastToolResults(req)) {
            if (!r.text.includes(`LABEL=${label}\n`)) continue
            return Object.fromEntries(
              r.text
                .split('\n')
                .map((l) => /^([\w-]+): (.*)$/.exec(l))
                .filter((m): m is RegExpExecArray => m !== null)
                .map((m) => [m[1]!, m[2]!]),
            )
          }
        }
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`no probe result for ${label}`)
    },
    nedGot: async (label) => JSON.stringify(await sessionEvents(url, ned)).includes(`INJECTED by ${label}`),
  }
}

const CUT_OFF = {
  'dsh-api-prompt': expect.stringMatching(/^fail /),
  'plugin-routes': expect.stringMatching(/^fail /),
  'loopback-server': expect.stringMatching(/^fail /),
  'outer-address-server': expect.stringMatching(/^fail /),
  'ssh-agent': expect.stringMatching(/^fail /),
  'ip-link-down': expect.stringMatching(/^exit [1-9]/),
  umount: expect.stringMatching(/^exit [1-9]/),
}

describe("Bots' networks on real DSH Web, inside a namespace of the test's", () => {
  it("a default Bot's shell (internet) reaches the internet host only: DSH's /api into another Bot's chat, the plugin's routes, both servers of the machine and the ssh agent fail; ip link and umount fail as root", async () => {
    const s = await scene()
    await s.prompt(s.ownSession('Nia'), 'PROBE default')
    expect(await s.probeResult('default')).toEqual({ ...CUT_OFF, 'internet-server': 'ok 200' })
    expect(await s.nedGot('default')).toBe(false)
  })

  it('a task Session and a member Session of the Bot behave as its own chat', async () => {
    const s = await scene()
    expect((await s.send('POST', '/tasks', { tasks: [{ title: 'Probe', brief: 'PROBE task', assignee: 'Nia' }] })).status).toBe(201)
    expect(await s.probeResult('task')).toEqual({ ...CUT_OFF, 'internet-server': 'ok 200' })
    expect((await s.send('POST', '/groups', { name: 'Desk', members: ['Nia', 'Ned'], mode: 'everyone' })).status).toBe(201)
    let room: string | undefined
    for (let i = 0; i < 100 && !room; i++) {
      room = (await s.send('GET', '/groups/Desk')).body.group.roomSessionId
      if (!room) await new Promise((r) => setTimeout(r, 100))
    }
    await s.prompt(room!, 'PROBE member')
    expect(await s.probeResult('member')).toEqual({ ...CUT_OFF, 'internet-server': 'ok 200' })
    expect(await s.nedGot('task')).toBe(false)
    expect(await s.nedGot('member')).toBe(false)
  })

  it('at none the Bot reaches nothing, not even the internet host; at full it reaches everything (and its /api prompt lands)', async () => {
    const s = await scene()
    const nia = s.botId('Nia')
    expect((await s.send('PUT', `/bots/${nia}/network`, { level: 'none' })).body).toMatchObject({ network: 'none', probe: { state: 'ready' } })
    await s.prompt(s.ownSession('Nia'), 'PROBE none')
    expect(await s.probeResult('none')).toEqual({ ...CUT_OFF, 'internet-server': expect.stringMatching(/^fail /) })
    expect((await s.send('PUT', `/bots/${nia}/network`, { level: 'full' })).body).toMatchObject({ network: 'full' })
    await s.prompt(s.ownSession('Nia'), 'PROBE full')
    expect(await s.probeResult('full')).toEqual({
      'dsh-api-prompt': 'ok 200',
      'plugin-routes': 'ok 200',
      'loopback-server': 'ok 200',
      'outer-address-server': 'ok 200',
      'internet-server': 'ok 200',
      'ssh-agent': 'ok connected',
    })
    await expect.poll(() => s.nedGot('full'), { timeout: 30_000 }).toBe(true)
  })

  it("with Debian's bubblewrap unpacked on DSH's PATH (DSH's sandbox then prefers bwrap), a default Bot's shell runs under bwrap inside its namespaces and reaches the internet host only", async () => {
    const s = await scene({ pathFirst: privateBubblewrap() })
    await s.prompt(s.ownSession('Nia'), 'PROBE bwrap')
    expect(await s.probeResult('bwrap')).toEqual({ ...CUT_OFF, 'internet-server': 'ok 200', 'tmp-fs': 'tmpfs' })
    expect(await s.nedGot('bwrap')).toBe(false)
  })

  it("the person sets a Bot's level on the /bot-team page in a paired browser (Chromium inside the namespace); full shows what it opens", async () => {
    const s = await scene()
    const browser = await launchChromiumInside(s.outer)
    onTestFinished(() => browser.close())
    const page = await browser.newPage()
    await page.goto(`${s.inner}/bot-team`)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), s.token)
    await page.reload()
    const nia = page.getByTestId('bt-network-Nia')
    await expect.poll(() => nia.inputValue(), { timeout: 15_000 }).toBe('internet')
    await nia.selectOption('full')
    // The page says what the API answered before the level is read back.
    await expect.poll(() => page.getByTestId('bt-network-panel').textContent(), { timeout: 15_000 }).toMatch(/Nia's network is set|refused|pair/i)
    await expect
      .poll(async () => (await s.send('GET', '/team')).body.bots.find((b: { name: string }) => b.name === 'Nia')?.network, { timeout: 15_000 })
      .toBe('full')
    await page.getByTestId('bt-network-full-warning').first().waitFor({ timeout: 15_000 })
    await page.getByTestId('bt-network-Nia').selectOption('none')
    await expect
      .poll(async () => (await s.send('GET', '/team')).body.bots.find((b: { name: string }) => b.name === 'Nia')?.network, { timeout: 15_000 })
      .toBe('none')
  })
})

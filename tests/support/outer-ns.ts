// A machine of the test's own for network tests: an outer user + network + mount namespace (root in
// it is the test's user), with a veth pair to an inner "internet" namespace that holds only TEST-NET
// addresses (198.51.100.0/24) — never any outside address. Programs run inside it through `spawn`
// (DSH, servers, `launchChromiumInside`); TCP ports are carried across with `expose` (a port inside →
// a loopback URL here) and `carryIn` (a port here → a port inside), through Unix sockets in a private
// folder. Everything ends with `close`. vitest's own process cannot join a namespace (it is threaded).
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright-core'
import { node22 } from '../../scripts/pack.ts'

/** The outer namespace's own address on the veth pair, and the inner "internet" host's. */
export const OUTER_ADDRESS = '198.51.100.1'
export const INTERNET_ADDRESS = '198.51.100.2'

const RELAY = fileURLToPath(new URL('./outer-ns-relay.ts', import.meta.url))

const SETUP = [
  'set -e',
  'ip link set lo up',
  'ip link add veth-o type veth peer name veth-i',
  `ip addr add ${OUTER_ADDRESS}/24 dev veth-o`,
  'ip link set veth-o up',
  // The inner namespace: a process that holds it until our stdin closes.
  'unshare --net -- sh -c "echo inner; exec cat >/dev/null" <&0 > "$1/inner" &',
  'inner=$!',
  'until grep -q inner "$1/inner" 2>/dev/null; do sleep 0.01; done',
  'ip link set veth-i netns "$inner"',
  `nsenter --net=/proc/$inner/ns/net sh -c "ip link set lo up && ip addr add ${INTERNET_ADDRESS}/24 dev veth-i && ip link set veth-i up && ip route add default via ${OUTER_ADDRESS}"`,
  // The carrier comes up asynchronously: wait for it before anyone sends.
  'until ip -br link show veth-o | grep -q "UP"; do sleep 0.01; done',
  'until nsenter --net=/proc/$inner/ns/net ip -br link show veth-i | grep -q "UP"; do sleep 0.01; done',
  'echo "ready $inner"',
  'exec cat >/dev/null',
].join('\n')

export interface OuterNs {
  /** Spawn a program inside the outer namespace (as its root), in `cwd` as seen there. */
  spawn(argv: readonly string[], options?: SpawnOptions & { cwd?: string }): ChildProcess
  /** Spawn a program inside the inner "internet" namespace (its network only). */
  spawnInternet(argv: readonly string[], options?: SpawnOptions): ChildProcess
  /** A URL on this side's loopback that reaches `port` on the outer namespace's loopback. */
  expose(port: number): Promise<string>
  /** A port on the outer namespace's loopback that reaches `port` on this side's loopback. */
  carryIn(port: number): Promise<number>
  /** The nsenter argv that enters the outer namespace (for a wrapper script). */
  readonly enter: readonly string[]
  close(): Promise<void>
}

/** Wait for a line matching `re` on a child's stdout. */
export function lineFrom(child: ChildProcess, re: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (c: Buffer) => {
      out += c.toString()
      const m = re.exec(out)
      if (m) {
        child.stdout?.off('data', onData)
        resolve(m)
      }
    }
    child.stdout?.on('data', onData)
    let err = ''
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString()
    })
    child.once('exit', (code) => reject(new Error(`${what} ended (${code}) before it was ready: ${out}${err}`)))
  })
}

/** Carry one connection both ways. */
function splice(c: Socket, up: Socket): void {
  c.pipe(up).pipe(c)
  up.on('error', () => c.destroy())
  c.on('error', () => up.destroy())
}

/** Make the outer namespace and its inner "internet" (about 100 ms). */
export async function outerNamespace(): Promise<OuterNs> {
  const dir = mkdtempSync(join(tmpdir(), 'bot-team-outer-'))
  chmodSync(dir, 0o755)
  const holder = spawn('unshare', ['--user', '--map-root-user', '--net', '--mount', '--propagation', 'private', '--', 'bash', '-c', SETUP, 'setup', dir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const ready = await lineFrom(holder, /ready (\d+)/, 'the outer namespace')
  const inner = Number(ready[1])
  const pid = holder.pid!
  const enter = ['nsenter', `--user=/proc/${pid}/ns/user`, `--net=/proc/${pid}/ns/net`, `--mount=/proc/${pid}/ns/mnt`, '--preserve-credentials']
  const children = new Set<ChildProcess>()
  const servers = new Set<Server>()
  const track = (child: ChildProcess) => {
    children.add(child)
    child.once('exit', () => children.delete(child))
    return child
  }
  let sockets = 0
  const outer: OuterNs = {
    enter,
    spawn(argv, options = {}) {
      const cwd = options.cwd ?? process.cwd()
      return track(spawn(enter[0]!, [...enter.slice(1), `--wdns=${cwd}`, '--', ...argv], { ...options, cwd }))
    },
    spawnInternet(argv, options = {}) {
      return track(spawn('nsenter', [`--user=/proc/${pid}/ns/user`, `--net=/proc/${inner}/ns/net`, '--preserve-credentials', '--', ...argv], options))
    },
    async expose(port) {
      const sock = join(dir, `out-${++sockets}.sock`)
      const relay = outer.spawn([node22, RELAY, 'unix-to-tcp', sock, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
      await lineFrom(relay, /relay ready/, 'the relay')
      const server = createServer((c) => splice(c, connect(sock)))
      servers.add(server)
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`
    },
    async carryIn(port) {
      const sock = join(dir, `in-${++sockets}.sock`)
      const server = createServer((c) => splice(c, connect(port, '127.0.0.1')))
      servers.add(server)
      await new Promise<void>((r) => server.listen(sock, r))
      chmodSync(sock, 0o777)
      const relay = outer.spawn([node22, RELAY, 'tcp-to-unix', '0', sock], { stdio: ['ignore', 'pipe', 'pipe'] })
      return Number((await lineFrom(relay, /relay ready (\d+)/, 'the relay'))[1])
    },
    async close() {
      for (const s of servers) s.close()
      for (const child of children) child.kill('SIGKILL')
      holder.stdin?.end()
      holder.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return outer
}

/**
 * Debian's Chromium inside the outer namespace, driven by playwright-core from here (its pipe
 * descriptors pass through nsenter): pages reach the namespace's loopback as DSH Web's own page would.
 */
export async function launchChromiumInside(outer: OuterNs): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), 'bot-team-chromium-'))
  const wrapper = join(dir, 'chromium')
  writeFileSync(wrapper, `#!/bin/sh\nexec ${outer.enter.join(' ')} --wdns=/ -- /usr/bin/chromium "$@"\n`, { mode: 0o755 })
  const browser = await chromium.launch({
    executablePath: wrapper,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  browser.on('disconnected', () => rmSync(dir, { recursive: true, force: true }))
  return browser
}

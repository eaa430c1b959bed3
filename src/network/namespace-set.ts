/**
 * One namespace set (process plumbing): an outer user namespace (root there = DSH's user) and, made
 * from it, the Bot's own user namespace (a non-zero uid, no capability) owning a network, mount and
 * pid namespace whose pid 1 reads a pipe from this process (its end kills them all). The set is set
 * up from the outer namespace, held by descriptors opened here, entered by `/proc/<DSH>/fd/<n>`.
 * Deliberately no policy (levels, owners, who may enter): the service decides.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import { STACK_DNS } from '../core/refused-ranges.ts'
import { COVER_SCRIPT, type Cover, coverArgs, SETUP_SCRIPT } from './covers.ts'

/** The programs a set needs, by absolute path (found by the probe: no `PATH` lookup later). */
export interface NetPrograms {
  unshare: string
  nsenter: string
  slirp4netns: string
  nft: string
  ip: string
  mount: string
  bash: string
  sh: string
}

export interface SetOptions {
  programs: NetPrograms
  /** The uid and gid the Bot has inside (never 0). */
  inner: { uid: number; gid: number }
  covers: readonly Cover[]
  /** The packet filter (`filter.ts`). */
  ruleset: string
  /** Whether the user-mode stack is attached at once. */
  stack: boolean
  /** Called once when the set's pid 1 is gone (ended here, or killed). */
  onGone?: () => void
  /** Time limit for each step of the set-up. */
  stepMs?: number
}

/** Why a set could not be made: the step and what the program said. */
export class SetError extends Error {}

const INIT = 'echo ready; while read -r _; do :; done'
/** The enter prefix's working-folder argument before the spawn fills it in (no such folder exists). */
export const CWD_SLOT = '--wdns=/nonexistent/bot-team: the folder of the spawn'
/** The enter prefix's stderr signatures of a failed entry (the command never ran). */
export const ENTER_FAILURES = [
  'nsenter: reassociate',
  'nsenter: cannot open',
  'nsenter: cannot change directory',
  'nsenter: fork failed',
  'nsenter: failed to execute',
]

/** Output of a helper process, collected with a cap. */
function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  child.stdout?.on('data', (c: Buffer) => {
    if (out.length < 8192) out += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    if (err.length < 8192) err += c.toString()
  })
  return { out: () => out, err: () => err }
}

/** Run one helper to its end with extra descriptors at 3, 4, …; rejects with its stderr on failure. */
function runHelper(
  argv: readonly string[],
  fds: readonly number[],
  input: string,
  what: string,
  ms: number,
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe', ...fds], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', ...env } })
    const text = collect(child)
    const timer = setTimeout(() => child.kill('SIGKILL'), ms)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new SetError(`${what}: ${error.message}`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(text.out())
      else reject(new SetError(`${what} failed (${signal ?? `exit ${code}`}): ${text.err().trim().slice(0, 400) || text.out().trim().slice(0, 400)}`))
    })
    child.stdin!.on('error', () => {})
    child.stdin!.end(input)
  })
}

/** Wait for a line on a child's stdout, or its early end. */
function waitFor(child: ChildProcess, line: string, what: string, ms: number, err: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const done = (error?: Error) => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve()
    }
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.split('\n').includes(line)) done()
    }
    const onExit = (code: number | null, signal: string | null) =>
      done(new SetError(`${what} ended (${signal ?? `exit ${code}`}) before it was ready: ${err().trim().slice(0, 400) || 'no message'}`))
    const timer = setTimeout(() => done(new SetError(`${what} was not ready within ${ms} ms: ${err().trim().slice(0, 400)}`)), ms)
    child.stdout?.on('data', onData)
    child.on('exit', onExit)
  })
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

export class NamespaceSet {
  private readonly opts: SetOptions
  private holder: ChildProcess | undefined
  private stackChild: ChildProcess | undefined
  private fds: { u1: number; u2: number; net: number; mnt: number; pid: number } | undefined
  private gone = false
  private readonly covered = new Set<string>()
  /** The network namespace's inode (`net:[…]`), for scans and tests. */
  netId = ''

  private constructor(opts: SetOptions) {
    this.opts = opts
  }

  /** Make a set: its namespaces, the set-up inside (proc, covers, resolver, loopback, filter), and the stack if asked. */
  static async create(opts: SetOptions): Promise<NamespaceSet> {
    const set = new NamespaceSet(opts)
    try {
      await set.start()
      return set
    } catch (error) {
      set.end()
      throw error
    }
  }

  get alive(): boolean {
    return !this.gone && this.holder !== undefined && alive(this.holder)
  }

  get stackAttached(): boolean {
    return this.stackChild !== undefined && alive(this.stackChild)
  }

  private async start(): Promise<void> {
    const { programs: p, inner } = this.opts
    const ms = this.opts.stepMs ?? 10_000
    const inner2 = `exec "$0" --user --map-user=${inner.uid} --map-group=${inner.gid} --net --mount --propagation private --pid --fork --kill-child -- "$@"`
    const holder = spawn(p.unshare, ['--user', '--map-root-user', '--', p.sh, '-c', `echo u1; read _ && ${inner2}`, p.unshare, p.bash, '-c', INIT], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' },
    })
    this.holder = holder
    holder.stdin!.on('error', () => {})
    const text = collect(holder)
    holder.on('exit', () => this.markGone())
    holder.on('error', () => this.markGone())
    await waitFor(holder, 'u1', 'unshare (the outer user namespace)', ms, text.err)
    if (!alive(holder)) throw new SetError('unshare ended early')
    const u1 = openSync(`/proc/${holder.pid}/ns/user`, 'r')
    this.fds = { u1, u2: -1, net: -1, mnt: -1, pid: -1 }
    holder.stdin!.write('\n')
    await waitFor(holder, 'ready', "unshare (the Bot's namespaces)", ms, text.err)
    if (!alive(holder)) throw new SetError('unshare ended early')
    const init = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, 'utf8').trim().split(/\s+/)[0]
    if (!init) throw new SetError('the namespaces have no first process')
    for (const ns of ['user', 'net', 'mnt', 'pid'] as const) this.fds[ns === 'user' ? 'u2' : ns] = openSync(`/proc/${init}/ns/${ns}`, 'r')
    this.netId = readlinkSync(`/proc/self/fd/${this.fds.net}`)
    if (this.netId === readlinkSync('/proc/self/ns/net')) throw new SetError('the namespaces were not made')
    const tmp = mkdtempSync(join('/tmp', 'bot-team-net-'))
    try {
      const resolv = join(tmp, 'resolv.conf')
      writeFileSync(resolv, `nameserver ${STACK_DNS}\n`, { mode: 0o644 })
      const args = [...coverArgs(this.opts.covers), 'resolv', resolv]
      await runHelper(
        this.outer([p.sh, '-c', SETUP_SCRIPT, 'bot-team-setup', ...args], true),
        this.outerFds(),
        this.opts.ruleset,
        'the set-up',
        ms,
        this.tools(),
      )
      for (const c of this.opts.covers) this.covered.add(c.path)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
    if (this.opts.stack) await this.attachStack()
  }

  /** nsenter into the outer user namespace (root there) and the set's namespaces, as a helper sees them (fds 3–6). */
  private outer(argv: readonly string[], withPid: boolean): string[] {
    const f = (n: number) => `/proc/self/fd/${n}`
    return [
      this.opts.programs.nsenter,
      `--user=${f(3)}`,
      '--preserve-credentials',
      `--net=${f(4)}`,
      `--mount=${f(5)}`,
      ...(withPid ? [`--pid=${f(6)}`] : []),
      '--',
      ...argv,
    ]
  }

  private outerFds(): number[] {
    const fds = this.fds!
    return [fds.u1, fds.net, fds.mnt, fds.pid]
  }

  /** The programs the set-up scripts run, by the probe's paths. */
  private tools(): Record<string, string> {
    const { mount, ip, nft } = this.opts.programs
    return { MOUNT: mount, IP: ip, NFT: nft }
  }

  /** Start the user-mode stack (slirp4netns): it dies with this process (its exit descriptor), configured before this resolves. */
  async attachStack(): Promise<void> {
    if (!this.alive || !this.fds) throw new SetError('the namespace set is gone')
    if (this.stackAttached) return
    const ms = this.opts.stepMs ?? 10_000
    const fds = this.fds
    const child = spawn(
      this.opts.programs.slirp4netns,
      [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--enable-seccomp',
        '--enable-sandbox',
        '--netns-type=path',
        '--userns-path=/proc/self/fd/3',
        '--exit-fd=4',
        '--ready-fd=5',
        '/proc/self/fd/6',
        'tap0',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', fds.u1, 'pipe', 'pipe', fds.net], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' } },
    )
    this.stackChild = child
    let err = ''
    child.stderr?.on('data', (c: Buffer) => {
      if (err.length < 4096) err += c.toString()
    })
    child.on('error', () => {})
    const ready = (child.stdio as unknown[])[5] as NodeJS.ReadableStream | null
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new SetError(`slirp4netns was not ready within ${ms} ms: ${err.trim().slice(0, 300)}`)), ms)
      const fail = (e: Error) => {
        clearTimeout(timer)
        child.kill('SIGKILL')
        reject(e)
      }
      ready?.once('data', () => {
        clearTimeout(timer)
        resolve()
      })
      child.once('exit', (code, signal) => fail(new SetError(`slirp4netns ended (${signal ?? `exit ${code}`}): ${err.trim().slice(0, 300) || 'no message'}`)))
      child.once('error', (e) => fail(new SetError(`slirp4netns: ${e.message}`)))
    })
  }

  /** Stop the user-mode stack: the namespace keeps only its loopback (`none`). */
  async detachStack(): Promise<void> {
    const child = this.stackChild
    this.stackChild = undefined
    if (!child || !alive(child)) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGKILL')
    await exited
  }

  /** Replace the machine's addresses in the live filter (`filter.ts` refresh text). */
  async refreshFilter(commands: string): Promise<void> {
    if (!this.alive) return
    await runHelper(this.outer([this.opts.programs.nft, '-f', '-'], false), this.outerFds(), commands, 'the filter refresh', this.opts.stepMs ?? 10_000)
  }

  /** Cover more paths (sockets bound since the set was made); paths already covered are skipped. */
  async cover(covers: readonly Cover[]): Promise<void> {
    const fresh = covers.filter((c) => !this.covered.has(c.path))
    if (!fresh.length || !this.alive) return
    await runHelper(
      this.outer([this.opts.programs.sh, '-c', COVER_SCRIPT, 'bot-team-cover', ...coverArgs(fresh)], false),
      this.outerFds(),
      '',
      'covering new sockets',
      this.opts.stepMs ?? 10_000,
      this.tools(),
    )
    for (const c of fresh) this.covered.add(c.path)
  }

  /**
   * The argv to put before a confined command (synchronous): nsenter enters the set through this
   * process's descriptors and changes to `cwd` as seen inside (entering the mount namespace starts
   * at its root). Without `cwd` the argv holds `CWD_SLOT`, which the spawn fills in (the folder is
   * the spawn's); left unfilled, nsenter finds no such folder and the command never runs.
   */
  prefix(cwd?: string): string[] {
    if (!this.fds || !this.alive) throw new SetError('the namespace set is gone')
    const f = (n: number) => `/proc/${process.pid}/fd/${n}`
    const { net, pid, mnt, u2 } = this.fds
    return [
      this.opts.programs.nsenter,
      `--net=${f(net)}`,
      `--pid=${f(pid)}`,
      `--mount=${f(mnt)}`,
      `--user=${f(u2)}`,
      '--preserve-credentials',
      cwd === undefined ? CWD_SLOT : `--wdns=${cwd}`,
      '--',
    ]
  }

  /** The pid of the set's holder (outside the set; for tests and leftovers scans). */
  get holderPid(): number | undefined {
    return this.holder?.pid
  }

  private markGone(): void {
    if (this.gone) return
    this.gone = true
    this.opts.onGone?.()
  }

  /**
   * End the set: its pid 1 and with it every process inside (also daemons), and the stack. The
   * descriptors stay open a little while so an entry already under way fails instead of finding
   * their numbers reused; then they are closed.
   */
  end(): void {
    const holder = this.holder
    if (holder && alive(holder)) {
      ;(holder.stdin as Writable | null)?.destroy()
      holder.kill('SIGKILL')
    }
    if (this.stackChild && alive(this.stackChild)) this.stackChild.kill('SIGKILL')
    this.stackChild = undefined
    this.markGone()
    const fds = this.fds
    this.fds = undefined
    if (fds) {
      const close = () => {
        for (const fd of Object.values(fds)) if (fd >= 0) closeSync(fd)
      }
      setTimeout(close, 5_000).unref()
    }
  }

  /** End synchronously at this process's exit (no timers run then). */
  endNow(): void {
    if (this.holder && alive(this.holder)) this.holder.kill('SIGKILL')
    if (this.stackChild && alive(this.stackChild)) this.stackChild.kill('SIGKILL')
  }
}

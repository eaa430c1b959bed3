/**
 * `botNetwork`: the namespace sets Bots' commands run in — one per owner (a Bot, or the release
 * check) and level, made on the owner's first command, ended on deletion, a change to or from
 * `full`, and DSH's exit; the start-up probe; `confine`, the one function that runs a command at a
 * level. The machine's addresses and bound sockets are re-read every few seconds and pushed into
 * live sets. Deliberately no policy: which level a command gets is the roster's and the tasks'.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { resolve } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import { botOwner, type NetworkLevel } from '../core/network.ts'
import type { SandboxMode } from '../core/sources.ts'
import { TeamRefusal } from '../core/refusal.ts'
import type { ConfinedArgv, Subprocess, SubprocessSpec } from '../dsh/services.ts'
import { type CoverFacts, coversFor, socketPaths } from './covers.ts'
import { filterRuleset, ownAddresses, refreshRuleset } from './filter.ts'
import { CWD_SLOT, ENTER_FAILURES, NamespaceSet } from './namespace-set.ts'
import { type ProbeResult, probeNetwork } from './probe.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botNetwork: BotNetwork
  }
}

export interface NetworkConfig {
  /** Where the probe looks for unshare, nsenter, slirp4netns, nft, ip, mount, bash and sh (default: the usual system folders). */
  programDirs?: string[] | undefined
  /** Seconds between re-reads of the machine's addresses and sockets (0: never; tests refresh by hand). */
  refreshSeconds?: number | undefined
}

/** A namespace set's level: `full` has none. */
export type SetLevel = Exclude<NetworkLevel, 'full'>

/** The one request to run a command at a network level. */
export interface ConfineRequest {
  /** Whose set: `bot:<id>`, or `release` (the person's release check has one of its own). */
  owner: string
  level: NetworkLevel
  argv: readonly string[]
  /** DSH's sandbox mode for the command (`danger-full-access`: unconfined, and only at `full`). */
  mode: SandboxMode
  workspaceRoot: string
  /** The folder the command will be spawned in (default: the workspace root). */
  cwd?: string
  /** Folders the owner works in: never covered in its set. */
  keep?: readonly string[]
}

/** One probe per process and set of folders (the machine does not change under a running DSH). */
const probes = new Map<string, Promise<Exclude<ProbeResult, { state: 'checking' }>>>()

const BOT_INNER = { uid: (process.getuid?.() ?? 0) || 1000, gid: (process.getgid?.() ?? 0) || 1000 }

export class BotNetwork extends Service {
  private readonly config: NetworkConfig
  private probed: ProbeResult = { state: 'checking' }
  private probing: Promise<Exclude<ProbeResult, { state: 'checking' }>> | undefined
  private readonly sets = new Map<string, NamespaceSet>()
  private readonly making = new Map<string, Promise<NamespaceSet>>()
  /** The folders each set keeps uncovered (its owner's), for later covers. */
  private readonly kept = new WeakMap<NamespaceSet, readonly string[]>()
  /** Owners whose `internet` set runs without its stack (the owner is at `none` now). */
  private readonly offline = new Set<string>()
  private addresses = ''
  private timer: NodeJS.Timeout | undefined
  private disposed = false

  constructor(ctx: Context, config: NetworkConfig = {}) {
    super(ctx, 'botNetwork')
    this.config = config
  }

  async [Service.init](): Promise<void> {
    const atExit = () => {
      for (const set of this.sets.values()) set.endNow()
    }
    process.on('exit', atExit)
    this.ctx.effect(
      () => () => {
        this.disposed = true
        process.off('exit', atExit)
        if (this.timer) clearInterval(this.timer)
        for (const set of this.sets.values()) set.end()
        this.sets.clear()
      },
      'botNetwork:sets',
    )
    // DSH spawns what `confine` returned: the folder it spawns in goes into the enter prefix here.
    this.ctx.inject(['subprocess'], (scope) => {
      const sub = scope.subprocess as Subprocess
      const spawnOriginal = sub.spawn.bind(sub)
      const terminalOriginal = sub.spawnTerminal?.bind(sub)
      const spawn = (spec: SubprocessSpec) => spawnOriginal(this.fillEntry(spec))
      const spawnTerminal = terminalOriginal && ((spec: SubprocessSpec) => terminalOriginal(this.fillEntry(spec)))
      sub.spawn = spawn
      if (spawnTerminal) sub.spawnTerminal = spawnTerminal
      scope.effect(
        () => () => {
          if (sub.spawn === spawn) delete (sub as { spawn?: unknown }).spawn
          if (spawnTerminal && sub.spawnTerminal === spawnTerminal) delete (sub as { spawnTerminal?: unknown }).spawnTerminal
        },
        'botNetwork:subprocess',
      )
    })
    // A deleted Bot's namespaces end with every process in them.
    this.ctx.on('bot-team/bot-deleted', ({ botId }) => {
      this.endOwner(botOwner(botId))
    })
    void this.whenProbed()
  }

  /** The probe's verdict so far. */
  probe(): ProbeResult {
    return this.probed
  }

  /** The probe's verdict, once it is in (the probe runs once per process, on the first ask). */
  whenProbed(): Promise<Exclude<ProbeResult, { state: 'checking' }>> {
    const key = JSON.stringify(this.config.programDirs ?? null)
    let shared = probes.get(key)
    if (!shared) {
      shared = probeNetwork({
        dirs: this.config.programDirs,
        inner: BOT_INNER,
        confine: this.ctx.get('sandbox') ? (argv) => this.sandboxArgv(argv, 'read-only', '/') : undefined,
      })
      probes.set(key, shared)
    }
    this.probing ??= shared.then((result) => {
      this.probed = result
      return result
    })
    return this.probing
  }

  /** DSH's sandbox argv for a command (no Session: the roster's guard leaves it as the runner makes it). */
  private sandboxArgv(argv: readonly string[], mode: SandboxMode, workspaceRoot: string): string[] {
    return this.sandboxConfine(argv, mode, workspaceRoot).argv
  }

  private sandboxConfine(argv: readonly string[], mode: SandboxMode, workspaceRoot: string): ConfinedArgv {
    const sandbox = this.ctx.get('sandbox')
    if (!sandbox) throw new TeamRefusal('unavailable', `no DSH sandbox here to run it at ${mode}`)
    return sandbox.confine(argv, { mode: mode as Exclude<SandboxMode, 'danger-full-access'>, workspaceRoot })
  }

  /**
   * The one function that runs a command at a network level: the argv to spawn (and how its
   * failures read) — DSH's sandbox at `mode` inside the owner's set at `level`, made now if
   * needed. `full` is the sandbox alone (`danger-full-access`: the argv as it is). Refused
   * (`TeamRefusal`, code `unavailable`) where the set cannot be made; never runs it unconfined.
   */
  async confine(req: ConfineRequest): Promise<ConfinedArgv> {
    if (req.level !== 'full' && req.mode === 'danger-full-access')
      throw new TeamRefusal('forbidden', `a command at danger-full-access runs unconfined, which its network level (${req.level}) does not allow`)
    const bare: ConfinedArgv =
      req.mode === 'danger-full-access'
        ? { argv: [...req.argv], enforcement: 'full', denialSignatures: [], runnerFailureRules: [] }
        : this.sandboxConfine(req.argv, req.mode, req.workspaceRoot)
    if (req.level === 'full') return bare
    await this.ensure(req.owner, req.level, req.keep ?? [req.workspaceRoot])
    return this.wrap(bare, this.prefixFor(req.owner, req.level, req.cwd ?? req.workspaceRoot))
  }

  /**
   * A spawn request with the enter prefix's folder slot filled from its own folder (as the set sees
   * the same path) and `DSH_WEB_URL` dropped (inside a set it names the Bot's own loopback). Only
   * the slot of a prefix at the start of the argv is filled; any other request passes unchanged.
   */
  fillEntry(spec: SubprocessSpec): SubprocessSpec {
    const slot = spec.argv.indexOf(CWD_SLOT)
    const end = spec.argv.indexOf('--')
    if (slot < 0 || end < slot || !spec.argv[0]?.endsWith('/nsenter')) return spec
    const argv = [...spec.argv]
    argv[slot] = `--wdns=${resolve(spec.cwd ?? process.cwd())}`
    const { DSH_WEB_URL: _dropped, ...env } = spec.env ?? {}
    return { ...spec, argv, env }
  }

  /** A confined argv entered into a set through `prefix` (synchronous; the set must be up). */
  wrap(confined: ConfinedArgv, prefix: readonly string[]): ConfinedArgv {
    return {
      ...confined,
      argv: [...prefix, ...confined.argv],
      runnerFailureRules: [...confined.runnerFailureRules, { fatalSignatures: ENTER_FAILURES }],
    }
  }

  /** Make the owner's set at `level` if it is not up (awaits the probe); refused with the probe's reason where it cannot be. */
  async ensure(owner: string, level: SetLevel, keep: readonly string[] = []): Promise<void> {
    const probe = await this.whenProbed()
    if (probe.state !== 'ready') throw new TeamRefusal('unavailable', `${probe.reason}. Fix: ${probe.fix}`)
    const key = `${owner}\n${level}`
    if (this.sets.get(key)?.alive) return
    let making = this.making.get(key)
    if (!making) {
      making = this.make(owner, level, probe.programs, keep).finally(() => this.making.delete(key))
      this.making.set(key, making)
    }
    await making
  }

  private async make(
    owner: string,
    level: SetLevel,
    programs: Extract<ProbeResult, { state: 'ready' }>['programs'],
    keep: readonly string[],
  ): Promise<NamespaceSet> {
    const key = `${owner}\n${level}`
    const own = this.ownAddressList()
    let set: NamespaceSet
    try {
      set = await NamespaceSet.create({
        programs,
        inner: BOT_INNER,
        covers: coversFor(this.coverFacts(keep)),
        ruleset: filterRuleset(own),
        stack: level === 'internet' && !this.offline.has(owner),
        onGone: () => {
          if (this.sets.get(key) === set) this.sets.delete(key)
        },
      })
    } catch (error) {
      throw new TeamRefusal('unavailable', `its network namespaces could not be made (${(error as Error).message})`)
    }
    if (this.disposed) {
      set.end()
      throw new TeamRefusal('unavailable', 'the plugin is stopping')
    }
    this.sets.get(key)?.end()
    this.sets.set(key, set)
    this.kept.set(set, keep)
    this.startRefresh()
    return set
  }

  /**
   * The prefix that enters the owner's set at `level` (synchronous): refused when it is not up.
   * Without `cwd` it holds the slot `fillEntry` fills from the spawn's own folder.
   */
  prefixFor(owner: string, level: SetLevel, cwd?: string): string[] {
    const set = this.sets.get(`${owner}\n${level}`)
    if (!set?.alive) throw new TeamRefusal('unavailable', 'its network namespaces are not up (run the command again)')
    return set.prefix(cwd)
  }

  /** Whether the owner's set at `level` is up now. */
  isUp(owner: string, level: SetLevel): boolean {
    return this.sets.get(`${owner}\n${level}`)?.alive === true
  }

  /** The network namespace id (`net:[…]`) of the owner's set at `level`, while it is up. */
  netIdOf(owner: string, level: SetLevel): string | undefined {
    const set = this.sets.get(`${owner}\n${level}`)
    return set?.alive ? set.netId : undefined
  }

  /**
   * `internet` ↔ `none` live: the owner's `internet` set loses its stack (its processes keep
   * running, offline) or gets it back.
   */
  async setOnline(owner: string, online: boolean): Promise<void> {
    if (online) this.offline.delete(owner)
    else this.offline.add(owner)
    const set = this.sets.get(`${owner}\ninternet`)
    if (!set?.alive) return
    if (online) await set.attachStack()
    else await set.detachStack()
  }

  /** End every set of an owner now: every process inside them ends (also daemons). */
  endOwner(owner: string): number {
    let ended = 0
    for (const [key, set] of [...this.sets]) {
      if (!key.startsWith(`${owner}\n`)) continue
      this.sets.delete(key)
      set.end()
      ended++
    }
    return ended
  }

  /** This machine's addresses now (every interface, loopback included). */
  private ownAddressList(): string[] {
    return Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i ? [i.address] : []))
  }

  private coverFacts(keep: readonly string[]): CoverFacts {
    let listing = ''
    try {
      listing = readFileSync('/proc/net/unix', 'utf8')
    } catch {
      // No listing (not Linux's procfs): the named folders are still covered.
    }
    return {
      uid: process.getuid?.() ?? 0,
      home: process.env.HOME,
      sshAuthSock: process.env.SSH_AUTH_SOCK,
      xdgRuntimeDir: process.env.XDG_RUNTIME_DIR,
      sockets: socketPaths(listing),
      keep,
      kind: (path) => {
        try {
          const s = statSync(path)
          return s.isDirectory() ? 'dir' : s.isSocket() ? 'socket' : 'file'
        } catch {
          return undefined
        }
      },
      real: (path) => {
        try {
          return realpathSync(path)
        } catch {
          return undefined
        }
      },
    }
  }

  private startRefresh(): void {
    const seconds = this.config.refreshSeconds ?? 5
    if (this.timer || seconds <= 0) return
    this.addresses = JSON.stringify(ownAddresses(this.ownAddressList()))
    this.timer = setInterval(() => void this.refresh().catch(() => {}), seconds * 1000)
    this.timer.unref()
  }

  /**
   * Push what changed on the machine into every live set: its addresses into the filters, newly
   * bound sockets into the covers. Returns how many sets took a change.
   */
  async refresh(): Promise<number> {
    const list = this.ownAddressList()
    const now = JSON.stringify(ownAddresses(list))
    const addressesChanged = now !== this.addresses
    this.addresses = now
    let changed = 0
    for (const set of [...this.sets.values()]) {
      if (!set.alive) continue
      try {
        if (addressesChanged) await set.refreshFilter(refreshRuleset(list))
        await set.cover(coversFor(this.coverFacts(this.kept.get(set) ?? [])))
        changed++
      } catch {
        // A set that cannot take the change is ended: its owner's next command makes a new one.
        set.end()
      }
    }
    return changed
  }
}

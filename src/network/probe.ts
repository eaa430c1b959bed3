/**
 * Whether this machine can give a Bot a network of its own: the programs (looked up in the folders
 * given, so a test can hide them), then a real set at `internet` whose confined command must see
 * only `lo` and `tap0`, a non-zero uid and no capability — which also proves the user namespaces,
 * the mounts and the packet filter load. Each failure is said with its fix. No policy, no state.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { join } from 'node:path'
import { filterRuleset } from './filter.ts'
import { NamespaceSet, type NetPrograms, SetError } from './namespace-set.ts'

/** Where programs are looked for unless the config says otherwise (never `PATH`). */
export const PROGRAM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'] as const

/** The Debian package of each program (the fix names them). */
const PACKAGES: Readonly<Record<keyof NetPrograms, string>> = {
  unshare: 'util-linux',
  nsenter: 'util-linux',
  slirp4netns: 'slirp4netns',
  nft: 'nftables',
  ip: 'iproute2',
  mount: 'mount',
  bash: 'bash',
  sh: 'dash',
}

export type ProbeResult = { state: 'checking' } | { state: 'ready'; programs: NetPrograms; ms: number } | { state: 'unavailable'; reason: string; fix: string }

/** The probe as the person is shown it (no program paths). */
export function probeView(probe: ProbeResult): { state: ProbeResult['state']; reason?: string; fix?: string } {
  return probe.state === 'unavailable' ? { state: probe.state, reason: probe.reason, fix: probe.fix } : { state: probe.state }
}

/** Find every program in `dirs` (the first executable match), or the packages that are missing. */
export function findPrograms(dirs: readonly string[]): { programs: NetPrograms } | { missing: string[]; packages: string[] } {
  const found: Partial<NetPrograms> = {}
  const missing: (keyof NetPrograms)[] = []
  for (const name of Object.keys(PACKAGES) as (keyof NetPrograms)[]) {
    const path = dirs
      .map((d) => join(d, name))
      .find((p) => {
        try {
          accessSync(p, constants.X_OK)
          return true
        } catch {
          return false
        }
      })
    if (path) found[name] = path
    else missing.push(name)
  }
  if (missing.length) return { missing, packages: [...new Set(missing.map((m) => PACKAGES[m]))] }
  return { programs: found as NetPrograms }
}

/** The fix for a failed set, read from what the failing step said. */
function fixFor(message: string): string {
  if (/unshare|user namespace|map|setgroups|uid_map/i.test(message) && /not permitted|permission denied|no space left|invalid argument/i.test(message))
    return 'allow user namespaces for DSH\'s user (sysctl user.max_user_namespaces above 0 and, on Debian, kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile that allows "userns")'
  if (/\/dev\/net\/tun/i.test(message)) return "make /dev/net/tun usable by DSH's user (modprobe tun; the device must be readable and writable)"
  if (/slirp4netns/i.test(message)) return 'install slirp4netns (apt-get install slirp4netns) and check that it runs'
  if (/nft|netlink|filter/i.test(message)) return 'install nftables (apt-get install nftables) on a kernel with nf_tables'
  return 'install slirp4netns and nftables (apt-get install slirp4netns nftables iproute2) and allow user namespaces'
}

/** What the probe's command prints inside the set: network devices, then the status lines that matter. */
const PROBE_COMMAND = ['/bin/sh', '-c', 'cat /proc/self/net/dev; echo ---; grep -E "^(Uid|CapEff):" /proc/self/status']

/**
 * Probe the machine. `confine` wraps the probe's command in DSH's sandbox runner (so the runner is
 * proven inside the set too); without one the command runs bare inside the set.
 */
export async function probeNetwork(opts: {
  dirs?: readonly string[]
  inner: { uid: number; gid: number }
  confine?: (argv: string[]) => string[]
}): Promise<Exclude<ProbeResult, { state: 'checking' }>> {
  const started = performance.now()
  const found = findPrograms(opts.dirs ?? PROGRAM_DIRS)
  if ('missing' in found)
    return {
      state: 'unavailable',
      reason: `this machine lacks ${found.missing.join(', ')} (looked in ${(opts.dirs ?? PROGRAM_DIRS).join(', ') || 'no folder'})`,
      fix: `install ${found.packages.join(' ')} (apt-get install ${found.packages.join(' ')})`,
    }
  let set: NamespaceSet | undefined
  try {
    set = await NamespaceSet.create({ programs: found.programs, inner: opts.inner, covers: [], ruleset: filterRuleset([]), stack: true })
    let argv: string[]
    try {
      argv = [...set.prefix('/'), ...(opts.confine ? opts.confine(PROBE_COMMAND) : PROBE_COMMAND)]
    } catch (error) {
      return { state: 'unavailable', reason: `DSH's sandbox cannot confine a command here (${(error as Error).message})`, fix: "fix DSH's sandbox first" }
    }
    const out = await new Promise<{ ok: boolean; text: string }>((resolve) =>
      execFile(argv[0]!, argv.slice(1), { timeout: 10_000, cwd: '/' }, (error, stdout, stderr) =>
        resolve({ ok: !error, text: error ? `${String(stderr).trim() || error.message}` : String(stdout) }),
      ),
    )
    if (!out.ok) return { state: 'unavailable', reason: `a command inside the namespaces failed: ${out.text.slice(0, 300)}`, fix: fixFor(out.text) }
    const devices = out.text
      .split('\n---\n')[0]!
      .split('\n')
      .slice(2)
      .filter((l) => l.includes(':'))
      .map((l) => l.split(':')[0]!.trim())
      .sort()
    const uid = /^Uid:\s+(\d+)/m.exec(out.text)?.[1]
    const caps = /^CapEff:\s+([0-9a-f]+)/m.exec(out.text)?.[1]
    if (devices.join(',') !== 'lo,tap0')
      return { state: 'unavailable', reason: `the namespace has the wrong devices (${devices.join(', ') || 'none'})`, fix: fixFor('slirp4netns') }
    if (uid === undefined || uid === '0' || caps === undefined || /[1-9a-f]/.test(caps))
      return { state: 'unavailable', reason: `a command inside runs as uid ${uid ?? '?'} with capabilities ${caps ?? '?'}`, fix: fixFor('') }
    return { state: 'ready', programs: found.programs, ms: Math.round(performance.now() - started) }
  } catch (error) {
    const message = error instanceof SetError ? error.message : String((error as Error)?.message ?? error)
    return { state: 'unavailable', reason: `the namespaces could not be made: ${message.slice(0, 400)}`, fix: fixFor(message) }
  } finally {
    set?.end()
  }
}

/**
 * Which paths a Bot's mount namespace covers (pure over the facts it is given): the runtime folders
 * under `/run/user` (and `$XDG_RUNTIME_DIR`), `$SSH_AUTH_SOCK`'s folder, the Docker socket,
 * `/tmp/.X11-unix`, and every other path-named Unix socket bound on this machine — never a folder
 * that is or holds one the Bot works in, nor `/tmp` itself. Also the setup script that mounts them.
 */
import { dirname, isAbsolute, normalize, sep } from 'node:path'

export interface Cover {
  path: string
  /** A folder gets an empty tmpfs; a socket or file gets `/dev/null` bound over it. */
  as: 'dir' | 'file'
}

export interface CoverFacts {
  uid: number
  home?: string | undefined
  sshAuthSock?: string | undefined
  xdgRuntimeDir?: string | undefined
  /** Paths of the Unix sockets bound on this machine (`/proc/net/unix` of DSH's own namespace). */
  sockets: readonly string[]
  /** Folders the Bot works in: never covered, nor anything inside them. */
  keep: readonly string[]
  /** What a path is now (after links), or undefined when it does not exist. */
  kind(path: string): 'dir' | 'socket' | 'file' | undefined
  /** The real path (links resolved), or undefined. */
  real(path: string): string | undefined
}

/** At most this many covers per namespace (a machine with more bound sockets keeps the first). */
export const MAX_COVERS = 256

/** Folders that hold far more than one program's sockets: a socket directly in one is covered alone. */
const SHARED = new Set(['/', '/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm', '/dev', '/home', '/root'])

const inside = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep)

/** The covers for one namespace set, deepest last (a folder before the files it holds is skipped). */
export function coversFor(facts: CoverFacts): Cover[] {
  const out = new Map<string, Cover>()
  const kept = facts.keep.map((k) => facts.real(k) ?? normalize(k))
  const covered = (path: string) => [...out.values()].some((c) => c.as === 'dir' && inside(path, c.path))
  const dir = (raw: string | undefined) => {
    if (!raw || !isAbsolute(raw)) return
    const path = facts.real(raw)
    if (!path || facts.kind(path) !== 'dir' || SHARED.has(path) || path === facts.home) return
    if (kept.some((k) => inside(k, path))) return
    if (!covered(path)) out.set(path, { path, as: 'dir' })
  }
  const file = (raw: string | undefined) => {
    if (!raw || !isAbsolute(raw) || out.size >= MAX_COVERS) return
    const path = facts.real(raw)
    if (!path || covered(path) || out.has(path)) return
    const kind = facts.kind(path)
    if (kind !== 'socket' && kind !== 'file') return
    if (kept.some((k) => inside(path, k))) return
    out.set(path, { path, as: 'file' })
  }
  dir('/run/user')
  dir(facts.xdgRuntimeDir)
  if (facts.sshAuthSock) {
    const folder = facts.real(dirname(facts.sshAuthSock))
    if (folder && !SHARED.has(folder) && folder !== facts.home && !kept.some((k) => inside(k, folder))) dir(folder)
    else file(facts.sshAuthSock)
  }
  dir('/tmp/.X11-unix')
  file('/run/docker.sock')
  file('/var/run/docker.sock')
  for (const socket of facts.sockets) file(socket)
  return [...out.values()]
}

/** The paths of the Unix sockets in a `/proc/net/unix` listing (abstract names are per namespace: left out). */
export function socketPaths(listing: string): string[] {
  const out = new Set<string>()
  for (const line of listing.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    const path = fields.slice(7).join(' ')
    if (path.startsWith('/')) out.add(path)
  }
  return [...out]
}

/**
 * The setup script run as root of the set's outer user namespace, inside its network, mount and
 * pid namespaces: a fresh `/proc`, the covers (`dir PATH` / `file PATH` argument pairs), the
 * resolver file (`resolv PATH`), loopback up, then the packet filter from stdin. Any failure fails the set.
 * A path that is no longer its real path (a link planted since it was read) is not mounted over.
 * The programs come as `$MOUNT`, `$IP` and `$NFT` (the probe's paths).
 */
export const SETUP_SCRIPT = [
  'set -e',
  '"$MOUNT" -t proc -o nosuid,nodev,noexec proc /proc',
  'while [ $# -gt 1 ]; do',
  '  kind=$1 p=$2',
  '  shift 2',
  '  case $kind in',
  '    dir) [ -d "$p" ] && [ "$(readlink -f -- "$p")" = "$p" ] || continue; "$MOUNT" -t tmpfs -o nosuid,nodev,size=1m,mode=0700 bot-team "$p" ;;',
  '    file) [ -e "$p" ] && [ "$(readlink -f -- "$p")" = "$p" ] || continue; "$MOUNT" --bind /dev/null "$p" ;;',
  '    resolv) if [ -e /etc/resolv.conf ]; then "$MOUNT" --bind "$p" /etc/resolv.conf; fi ;;',
  '  esac',
  'done',
  '"$IP" link set lo up',
  '"$NFT" -f -',
  'echo bot-team-setup-done',
].join('\n')

/** The script that adds covers to a live set (new sockets since it was made); the caller passes only paths not covered yet. */
export const COVER_SCRIPT = [
  'set -e',
  'while [ $# -gt 1 ]; do',
  '  kind=$1 p=$2',
  '  shift 2',
  '  case $kind in',
  '    dir) [ -d "$p" ] && [ "$(readlink -f -- "$p")" = "$p" ] || continue; "$MOUNT" -t tmpfs -o nosuid,nodev,size=1m,mode=0700 bot-team "$p" ;;',
  '    file) [ -e "$p" ] && [ "$(readlink -f -- "$p")" = "$p" ] || continue; "$MOUNT" --bind /dev/null "$p" ;;',
  '  esac',
  'done',
].join('\n')

/** The arguments of the setup scripts for these covers. */
export function coverArgs(covers: readonly Cover[]): string[] {
  return covers.flatMap((c) => [c.as, c.path])
}

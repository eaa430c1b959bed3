/**
 * `bot/state.lock`, the single-writer lock with its owner (pid, host, token) recorded inside: a dead
 * owner on this host is broken at once, any other goes stale; release checks the token, so a writer
 * whose lock was stolen never deletes the thief's. Deliberately does not decide what a failure means.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import lockfile from 'proper-lockfile'
import { LOCK_DIR, STATE_FILE } from './load.ts'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/private-file.ts'

export const OWNER_FILE = 'owner.json'

export interface LockOwner {
  pid: number
  host: string
  token: string
  acquiredAt: string
  pluginVersion: string
}

export interface LockOptionsLike {
  stale?: number
  update?: number
  retries?: number
  realpath?: boolean
  fs?: unknown
  onCompromised?: (error: Error) => unknown
  lockfilePath?: string
}

/** The proper-lockfile `lock` signature; injectable for tests. */
export type LockFn = (file: string, options: LockOptionsLike) => Promise<() => Promise<void>>

export interface LockHandle {
  readonly owner: LockOwner
  /** `ok` while `owner.json` in the lock directory still carries our token. */
  verify(): Promise<'ok' | 'missing' | 'other'>
  release(): Promise<void>
}

export type AcquireResult =
  | { kind: 'acquired'; handle: LockHandle; brokeDeadOwner?: LockOwner }
  | { kind: 'busy'; owner: LockOwner | null }
  | { kind: 'failed'; error: NodeJS.ErrnoException }

export interface AcquireOptions {
  dir: string
  staleMs: number
  updateMs: number
  pluginVersion: string
  lockFn?: LockFn
  onCompromised: (error: Error) => void
}

/** `true` unless `pid` certainly does not run on this host (ESRCH, or a zombie on Linux). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    if (state === 'Z' || state === 'X') return false
  } catch {}
  return true
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>
    if (typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.token === 'string') return o as LockOwner
  } catch {}
  return null
}

export async function readLockOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    return parseOwner(await fsp.readFile(path.join(lockPath, OWNER_FILE), 'utf8'))
  } catch {
    return null
  }
}

function readLockOwnerSync(lockPath: string): LockOwner | null {
  try {
    return parseOwner(fs.readFileSync(path.join(lockPath, OWNER_FILE), 'utf8'))
  } catch {
    return null
  }
}

/**
 * The fs proper-lockfile uses for this one lock. Before we own the lock, `rmdir` removes a stale
 * lock (owner file first, so the directory is empty). Once we own it, `rmdir` only removes the
 * directory while it still carries our token, so releasing after a theft leaves the thief alone.
 */
function makeLockFs(state: { token: string; owned: boolean; ownerWritten: boolean }) {
  const mayRemove = (lockPath: string) => {
    if (!state.owned) return true
    const owner = readLockOwnerSync(lockPath)
    return owner ? owner.token === state.token : !state.ownerWritten
  }
  return {
    mkdir: fs.mkdir,
    stat: fs.stat,
    utimes: fs.utimes,
    realpath: fs.realpath,
    rmdir(lockPath: string, callback: (error: NodeJS.ErrnoException | null) => void) {
      if (!mayRemove(lockPath)) return callback(null)
      fs.rm(path.join(lockPath, OWNER_FILE), { force: true }, () => fs.rmdir(lockPath, callback))
    },
    rmdirSync(lockPath: string) {
      if (!mayRemove(lockPath)) return
      fs.rmSync(path.join(lockPath, OWNER_FILE), { force: true })
      fs.rmdirSync(lockPath)
    },
  }
}

/**
 * Break a lock whose owner is recorded as a dead pid on this host: rename the directory away
 * (atomic), check the renamed copy still names that dead owner, then delete it. If a live
 * process re-took the lock in between, put it back; if that fails, that process sees ELOCKLOST
 * on its next save rather than two writers sharing the file.
 */
async function breakDeadLock(lockPath: string, dead: LockOwner): Promise<boolean> {
  const again = await readLockOwner(lockPath)
  if (!again || again.token !== dead.token) return false
  const tomb = `${lockPath}.dead-${process.pid}-${randomUUID().slice(0, 8)}`
  try {
    await fsp.rename(lockPath, tomb)
  } catch {
    return false
  }
  const moved = await readLockOwner(tomb)
  if (!moved || moved.token !== dead.token) {
    await fsp.rename(tomb, lockPath).catch(() => {})
    return false
  }
  await fsp.rm(tomb, { recursive: true, force: true }).catch(() => {})
  return true
}

export async function acquireStateLock(options: AcquireOptions, attempt = 0): Promise<AcquireResult> {
  const file = path.join(options.dir, STATE_FILE)
  const lockPath = path.join(options.dir, LOCK_DIR)
  const lockFn: LockFn = options.lockFn ?? (lockfile.lock as LockFn)
  const state = { token: randomUUID(), owned: false, ownerWritten: false }
  let release: () => Promise<void>
  try {
    release = await lockFn(file, {
      lockfilePath: lockPath,
      realpath: false,
      retries: 0,
      stale: options.staleMs,
      update: options.updateMs,
      fs: makeLockFs(state),
      onCompromised: (error) => options.onCompromised(error),
    })
  } catch (error) {
    const err = error as NodeJS.ErrnoException
    if (err.code !== 'ELOCKED') return { kind: 'failed', error: err }
    const owner = await readLockOwner(lockPath)
    if (owner && attempt === 0 && owner.host === os.hostname() && owner.pid !== process.pid && !isPidAlive(owner.pid)) {
      if (await breakDeadLock(lockPath, owner)) {
        const result = await acquireStateLock(options, attempt + 1)
        return result.kind === 'acquired' ? { ...result, brokeDeadOwner: owner } : result
      }
    }
    return { kind: 'busy', owner }
  }
  state.owned = true
  const owner: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    token: state.token,
    acquiredAt: new Date().toISOString(),
    pluginVersion: options.pluginVersion,
  }
  try {
    // Adding owner.json changes the directory's mtime, which proper-lockfile uses to prove the
    // lock is still ours; put back the mtime it set so its next refresh does not see a stranger.
    // Owner-only modes whatever the umask (chmod changes ctime, not the mtime proper-lockfile checks).
    const { mtime } = await fsp.stat(lockPath)
    await fsp.chmod(lockPath, PRIVATE_DIR_MODE)
    const ownerFile = path.join(lockPath, OWNER_FILE)
    await fsp.writeFile(ownerFile, JSON.stringify(owner) + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' })
    await fsp.chmod(ownerFile, PRIVATE_FILE_MODE)
    await fsp.utimes(lockPath, mtime, mtime)
    state.ownerWritten = true
  } catch {
    // Without owner.json a dead holder is only noticed after staleMs; ownership checks still
    // see "missing" and refuse saves, so release and report the failure instead.
    await release().catch(() => {})
    return { kind: 'failed', error: Object.assign(new Error('cannot record the lock owner in bot/state.lock'), { code: 'EOWNER' }) }
  }
  let released = false
  return {
    kind: 'acquired',
    handle: {
      owner,
      async verify() {
        // A synchronous read of a ~150-byte file: a few microseconds, against four thread-pool
        // round trips for the async read; it runs before every save.
        const current = readLockOwnerSync(lockPath)
        if (!current) return 'missing'
        return current.token === state.token ? 'ok' : 'other'
      },
      async release() {
        if (released) return
        released = true
        await release().catch(() => {})
      },
    },
  }
}

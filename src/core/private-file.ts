/**
 * How every file under `bot/` reaches the disk: `writePrivateFile` (temp file created exclusively,
 * `fchmod 0600`, write, fsync, rename, directory fsync — old or new, never a mix), its synchronous
 * twin, one-write appends and `openDurableAppend`, `makePrivateDir` (0700); never through a symbolic
 * link. Deliberately no locking, validation or retries, and free of zod and Cordis (the crash test).
 */
import { createHash, randomInt } from 'node:crypto'
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

/** A name safe as one path segment: ids of the usual shape as they are, anything else hashed. */
export function safeSegment(id: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : `h-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`
}

/** Mode of every file the store writes. */
export const PRIVATE_FILE_MODE = 0o600
/** Mode of the bot folder the store creates. */
export const PRIVATE_DIR_MODE = 0o700

/** Write `data` to `file` atomically and durably, mode 0600. Throws (and leaves no temp) on failure. */
export async function writePrivateFile(file: string, data: string | Uint8Array): Promise<void> {
  let tmp = ''
  let handle: fsp.FileHandle | undefined
  for (let attempt = 0; !handle; attempt++) {
    tmp = `${file}.${randomInt(1, 2 ** 32 - 1)}`
    try {
      handle = await fsp.open(tmp, 'wx', PRIVATE_FILE_MODE)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw error
    }
  }
  try {
    await handle.chmod(PRIVATE_FILE_MODE)
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = undefined
    await fsp.rename(tmp, file)
  } catch (error) {
    await handle?.close().catch(() => {})
    await fsp.rm(tmp, { force: true }).catch(() => {})
    throw error
  }
  await syncDir(path.dirname(file))
}

/** `writePrivateFile`, synchronously: the same temp name, mode, fsyncs and rename. */
export function writePrivateFileSync(file: string, data: string | Uint8Array): void {
  let tmp = ''
  let fd: number | undefined
  for (let attempt = 0; fd === undefined; attempt++) {
    tmp = `${file}.${randomInt(1, 2 ** 32 - 1)}`
    try {
      fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw error
    }
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
    writeFileSync(fd, data)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(tmp, file)
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    rmSync(tmp, { force: true })
    throw error
  }
  syncDirSync(path.dirname(file))
}

const OPEN_APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0)

/**
 * Append `data` to `file` in one write call (a crash tears at most this write), creating it with
 * mode 0600 and making it 0600 whatever the umask; a symbolic link at `file` is refused (ELOOP).
 * Returns the file's size after the write.
 */
export function appendPrivateFileSync(file: string, data: string): number {
  const fd = openSync(file, OPEN_APPEND, PRIVATE_FILE_MODE)
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
    writeSync(fd, data)
    return fstatSync(fd).size
  } finally {
    closeSync(fd)
  }
}

/** An append-only private file kept open: `append` resolves once the bytes are on disk. */
export interface DurableAppend {
  /** The file's size after the last append or truncate. */
  readonly size: number
  /** Write all of `data` at the end, then fsync. */
  append(data: string | Uint8Array): Promise<void>
  /** Cut the file to `size` bytes (a torn or failed append), then fsync. */
  truncate(size: number): Promise<void>
  close(): Promise<void>
}

/**
 * Open `file` for durable appends, creating it `0600` (and fsyncing its folder when it is new);
 * a symbolic link at `file` is refused (ELOOP). The caller serialises appends.
 */
export async function openDurableAppend(file: string): Promise<DurableAppend> {
  let created = true
  let handle: fsp.FileHandle
  try {
    handle = await fsp.open(file, OPEN_APPEND | constants.O_EXCL, PRIVATE_FILE_MODE)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    created = false
    handle = await fsp.open(file, OPEN_APPEND, PRIVATE_FILE_MODE)
  }
  try {
    await handle.chmod(PRIVATE_FILE_MODE)
    if (created) await syncDir(path.dirname(file))
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
  let size = (await handle.stat()).size
  return {
    get size() {
      return size
    },
    async append(data) {
      const buf = typeof data === 'string' ? Buffer.from(data) : data
      for (let off = 0; off < buf.length; ) off += (await handle.write(buf, off, buf.length - off)).bytesWritten
      await handle.sync()
      size += buf.length
    },
    async truncate(to) {
      await handle.truncate(to)
      await handle.sync()
      size = to
    },
    close: () => handle.close(),
  }
}

/** fsync a directory so a rename or create in it is durable. Filesystems that refuse are ignored. */
export async function syncDir(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined
  try {
    handle = await fsp.open(dir, 'r')
    await handle.sync()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EPERM' && code !== 'EISDIR') throw error
  } finally {
    await handle?.close().catch(() => {})
  }
}

/** `syncDir`, synchronously. */
function syncDirSync(dir: string): void {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EPERM' && code !== 'EISDIR') throw error
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Create `dir` (and missing parents) with mode 0700 for `dir` itself, whatever the umask. An
 * existing folder is left as it is; returns whether this call created it.
 */
export async function makePrivateDir(dir: string): Promise<boolean> {
  try {
    await fsp.mkdir(dir, { mode: PRIVATE_DIR_MODE })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'ENOENT') throw error
    await fsp.mkdir(path.dirname(dir), { recursive: true })
    return makePrivateDir(dir)
  }
  await fsp.chmod(dir, PRIVATE_DIR_MODE)
  return true
}

/** `<base>.<digits>`: a temp file of `writePrivateFile(<base>)` left behind by a killed writer. */
export function isPrivateTemp(name: string, base: string): boolean {
  return name.length > base.length + 1 && name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1))
}

/** Create `path` empty with mode 0600 if it does not exist, and make it 0600 if it does. */
export function touchPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'a', 0o600))
    chmodSync(path, 0o600)
  } catch {
    // the driver's own open reports a folder that cannot hold the file
  }
}

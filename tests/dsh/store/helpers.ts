import { type ChildProcess, fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import { BotStore, type Config, type StoreDeps, botStoreWith } from '../../../src/store/service.ts'

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

export function tempHome(prefix = 'bot-store-'): { home: string; bot: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  return { home, bot: path.join(home, 'bot') }
}

/** The botStore plugin on a fresh Cordis root, as the entry mounts it. */
export async function openStore(config: Partial<Config> & { dir: string }, deps?: StoreDeps) {
  const ctx = new Context()
  const plugin = deps ? botStoreWith(deps) : BotStore
  const fiber = await ctx.plugin(plugin, { followMs: 50, ...config })
  return { ctx, fiber, store: ctx.botStore }
}

export interface Child {
  proc: ChildProcess
  ready: Promise<any>
  call(cmd: string, extra?: object): Promise<any>
  exited: Promise<number | null>
  /** `bot-team/writer` payloads the child's store emitted, in order. */
  writerEvents: any[]
}

/** Fork a store process (Node 22 runs the .ts fixture directly) on `config.dir`. */
export function storeChild(config: object, opts: { uid?: number; gid?: number; umask?: number } = {}): Child {
  const { umask, ...ids } = opts
  const proc = fork(fixture('store-child.ts'), [], {
    env: {
      ...process.env,
      BOT_STORE_CONFIG: JSON.stringify({ followMs: 50, ...config }),
      ...(umask !== undefined ? { BOT_STORE_UMASK: umask.toString(8) } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    ...ids,
  })
  const writerEvents: any[] = []
  let seq = 0
  const pending = new Map<number, (v: any) => void>()
  let stderr = ''
  proc.stderr!.on('data', (d) => {
    stderr += d
  })
  const ready = new Promise<any>((resolve, reject) => {
    pending.set(0, resolve)
    proc.once('exit', (code) => reject(new Error(`store child exited early (${code}): ${stderr}`)))
  })
  proc.on('message', (msg: any) => {
    if (msg.event === 'writer') return void writerEvents.push(msg.payload)
    const resolve = pending.get(msg.id)
    pending.delete(msg.id)
    resolve?.(msg)
  })
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  return {
    proc,
    ready,
    exited,
    writerEvents,
    call(cmd, extra = {}) {
      const id = ++seq
      return new Promise((resolve) => {
        pending.set(id, resolve)
        proc.send({ id, cmd, ...extra })
      })
    },
  }
}

export async function until<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await probe()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'))

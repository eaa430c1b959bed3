/**
 * The check runner: a task's check command in its clone, through a spawner the caller passes (the
 * assignee's sandbox in the service; `/bin/sh -c` by default), with a time limit (default 10
 * minutes; the whole process group is killed), the output's tail masked by the caller's masker
 * before it is cut to its cap, so no piece of a secret becomes evidence. Deliberately no policy on
 * who may set the command, and no git.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { checkCommand, WORKTREE_LIMITS } from './policy.ts'
import { utf8Tail } from '../core/text-limits.ts'
import { formatIssues } from '../core/zod-issues.ts'

/** Starts the command in `cwd`; must return a child with piped stdout and stderr, in its own process group. */
export type CheckSpawner = (command: string, options: { cwd: string; env: Record<string, string> }) => ChildProcess

export interface CheckOptions {
  command: string
  cwd: string
  /** The secrets masker (`botSecrets`' in the service). */
  mask: (text: string) => string
  /**
   * Masking the capped tail (`botSecrets.capped`): `margin()` bytes are kept beyond the cap so a
   * value the cut crosses is masked whole, then `tail` masks and cuts. Absent: the cut text is masked.
   */
  capped?: { margin(): number; tail(bytes: Uint8Array, cap: number): string }
  timeoutMs?: number
  /** Bytes of output kept (the tail). */
  outputBytes?: number
  lines?: number
  env?: Record<string, string>
  spawner?: CheckSpawner
}

export interface CheckResult {
  ok: boolean
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  ms: number
  /** Bytes the command wrote in all. */
  outputBytes: number
  /** Whether older output was dropped to keep the tail within the cap. */
  truncated: boolean
  /** The last lines, masked: the task's evidence. */
  lastLines: string
  /** One line for the task's record. */
  summary: string
}

const defaultSpawner: CheckSpawner = (command, { cwd, env }) =>
  spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })

/**
 * The environment a check gets by default: the path, the person's home (as a Bot's shell has it, so
 * tool caches land there and not in the clone), a locale and `CI=1`; nothing else of the plugin's.
 */
export function checkEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', LANG: 'C.UTF-8', CI: '1' }
}

/** Run a check; resolves with its evidence (never rejects for the command's own failure). */
export function runCheck(options: CheckOptions): Promise<CheckResult> {
  const valid = checkCommand.safeParse(options.command)
  if (!valid.success) return Promise.reject(new Error(`The check command is not valid: ${formatIssues(valid.error, { root: 'command' })}. Nothing ran.`))
  const timeoutMs = Math.min(options.timeoutMs ?? WORKTREE_LIMITS.checkTimeoutMs, WORKTREE_LIMITS.checkMaxTimeoutMs)
  const cap = options.outputBytes ?? WORKTREE_LIMITS.checkOutputBytes
  const keepLines = options.lines ?? WORKTREE_LIMITS.checkLines
  const started = performance.now()
  return new Promise((resolve, reject) => {
    let child: ChildProcess
    try {
      child = (options.spawner ?? defaultSpawner)(options.command, { cwd: options.cwd, env: options.env ?? checkEnv() })
    } catch (error) {
      return reject(error)
    }
    let tail = Buffer.alloc(0)
    let total = 0
    let timedOut = false
    const take = (chunk: Buffer) => {
      total += chunk.length
      tail = Buffer.concat([tail, chunk])
      const keep = cap + (options.capped?.margin() ?? 0)
      if (tail.length > keep * 2) tail = tail.subarray(tail.length - keep)
    }
    child.stdout?.on('data', take)
    child.stderr?.on('data', take)
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      killGroup() // anything the command left running in its group
      // Masked before it is cut: a value the cap crosses is never left as a readable piece.
      const kept = Math.min(tail.length, cap)
      const text = options.capped ? options.capped.tail(tail, cap) : options.mask(utf8Tail(tail, cap))
      const lines = text.replace(/\s+$/, '').split('\n')
      const lastLines = lines.slice(-keepLines).join('\n')
      const ms = performance.now() - started
      const ok = !timedOut && code === 0
      const how = timedOut ? `stopped after ${Math.round(timeoutMs / 1000)} s` : code !== null ? `exit ${code}` : `killed by ${signal}`
      const summary = `${ok ? 'passed' : 'failed'} (${how}, ${(ms / 1000).toFixed(1)} s, ${total} bytes of output)`
      resolve({ ok, exitCode: code, signal: signal ?? null, timedOut, ms, outputBytes: total, truncated: total > kept, lastLines, summary })
    })
  })
}

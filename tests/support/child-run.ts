// One child process of a crash run: its stdout read as lines, a SIGKILL `ms` after the first line
// `armedBy` accepts (of its whole process group when `group`), and a stall limit. Answers every
// line, whether this run killed it, and how it exited; the caller decides what counts as a failure.
import { spawn } from 'node:child_process'

export interface ChildRun {
  lines: string[]
  killed: boolean
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
}

export interface ChildRunOptions {
  kill?: { armedBy: (line: string) => boolean; ms: number }
  /** Kill the whole process group (the child is started detached). */
  group?: boolean
  /** A run still going after this long is killed (`killed` stays false: it stalled). */
  stallMs?: number
}

export function runChild(script: string, args: readonly string[], opts: ChildRunOptions = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.group === true })
    const sigkill = () => {
      try {
        if (opts.group) process.kill(-p.pid!, 'SIGKILL')
        else p.kill('SIGKILL')
      } catch {}
    }
    const stall = opts.stallMs === undefined ? undefined : setTimeout(sigkill, opts.stallMs)
    const lines: string[] = []
    let buf = ''
    let stderr = ''
    let armed = false
    let killed = false
    p.stdout.on('data', (d: Buffer) => {
      buf += d
      const parts = buf.split('\n')
      buf = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        if (opts.kill && !armed && opts.kill.armedBy(line)) {
          armed = true
          setTimeout(() => {
            killed = true
            sigkill()
          }, opts.kill.ms)
        }
      }
    })
    p.stderr.on('data', (d) => {
      stderr += d
    })
    p.once('error', reject)
    p.once('exit', (code, signal) => {
      clearTimeout(stall)
      resolve({ lines, killed: killed && signal === 'SIGKILL', code, signal, stderr })
    })
  })
}

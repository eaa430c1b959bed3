// Run a crash-test child (a script run with this Node) until it prints `<marker><json>` on a line
// of its stdout, SIGKILL it there, and resolve with the parsed JSON. A child that ends any other
// way (exits by itself, crashes) rejects with its stderr.
import { spawn } from 'node:child_process'

export function killedAtMarker<T = unknown>(child: string, args: readonly string[], marker = 'killpoint '): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let buf = ''
    let err = ''
    let point: string | undefined
    p.stdout.on('data', (chunk: Buffer) => {
      buf += chunk
      const line = buf.split('\n').find((l) => l.startsWith(marker))
      if (line && point === undefined) {
        point = line.slice(marker.length)
        p.kill('SIGKILL')
      }
    })
    p.stderr.on('data', (chunk) => {
      err += chunk
    })
    p.once('exit', (_code, signal) => {
      if (signal === 'SIGKILL' && point !== undefined) resolve(JSON.parse(point) as T)
      else reject(new Error(`${child} ended without reaching "${marker.trim()}": ${err}`))
    })
  })
}

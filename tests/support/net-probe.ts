// What a Bot's shell reaches, run by the Bot's own `bash` in the network tests: for each target one
// line `<name>: ok <detail>` or `<name>: fail <error code>`. Targets are JSON on the command line:
// `{ name, url, body? }` (HTTP, a POST when it has a body) or `{ name, unix }` (a Unix socket).
import { connect } from 'node:net'

type Target = { name: string; url: string; body?: unknown } | { name: string; unix: string }

const targets = JSON.parse(process.argv[2] ?? '[]') as Target[]
const code = (error: unknown) => {
  const e = error as { code?: string; cause?: { code?: string }; name?: string }
  return e.cause?.code ?? e.code ?? e.name ?? 'error'
}
for (const t of targets) {
  if ('unix' in t) {
    const line = await new Promise<string>((resolve) => {
      const s = connect(t.unix)
      s.once('connect', () => {
        s.destroy()
        resolve('ok connected')
      })
      s.once('error', (e) => resolve(`fail ${code(e)}`))
    })
    console.log(`${t.name}: ${line}`)
    continue
  }
  try {
    const res = await fetch(t.url, {
      method: t.body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(t.body === undefined ? {} : { body: JSON.stringify(t.body) }),
      signal: AbortSignal.timeout(5000),
    })
    console.log(`${t.name}: ok ${res.status}`)
  } catch (error) {
    console.log(`${t.name}: fail ${code(error)}`)
  }
}

// A team on the in-process DSH core with DSH's real web server, for the tests of the plugin's
// HTTP routes: one way to start it, one JSON request helper, one capture of what the plugin
// prints on DSH's terminal (the pairing code goes there).
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, beforeEach, vi } from 'vitest'
import * as plugin from '../../src/index.ts'
import { PAIRING_HEADER } from '../../src/web/pairing.ts'
import { startDshHost, type DshHost } from './dsh-host.ts'

export interface WebTeamHost {
  host: DshHost
  /** `http://127.0.0.1:<port>` of DSH's web server. */
  origin: string
  /** A JSON request to `/bot-team/api<path>`; the answer's status and parsed body. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>
}

/** `script`: the scripted model's replies (default: "ok" to everything); `options`: a home of its own, DSH's permission stack. */
export async function startWebTeamHost(
  script: Parameters<typeof startDshHost>[0] = { fallback: { text: 'ok' } },
  options: Parameters<typeof startDshHost>[1] = {},
): Promise<WebTeamHost> {
  const host = await startDshHost(script, options)
  await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
  await host.ctx.plugin(plugin, { dir: join(host.home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as plugin.Config)
  const origin = `http://127.0.0.1:${host.ctx.webServer.port}`
  return {
    host,
    origin,
    async send(method, path, body, headers = { 'content-type': 'application/json' }) {
      const res = await fetch(`${origin}/bot-team/api${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      })
      return { status: res.status, body: (await res.json()) as any }
    },
  }
}

/** A web team host of one test: what the plugin printed on DSH's terminal, and pairing as the person does. */
export interface TestWebHost extends WebTeamHost {
  /** What the plugin wrote on DSH's terminal during this test (`captureTerminal`). */
  terminal: string[]
  /** Pair a browser (`pairBrowser`; `extra` headers on its requests); its token. */
  pair(extra?: Record<string, string>): Promise<string>
  /** Pair a browser that says it is Chromium; JSON request headers carrying its token. */
  pairedHeaders(): Promise<Record<string, string>>
}

const JSON_TYPE = { 'content-type': 'application/json' }
/** A browser's user agent, for the pairing record. */
export const BROWSER_HEADERS = { ...JSON_TYPE, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' }

/**
 * A fresh web team host for every test of the calling file (started before each with `script`,
 * DSH's terminal captured; disposed and the capture undone after); call it at the top level of the
 * file and read `current()` inside the tests.
 */
export function webTeamHostPerTest(script?: Parameters<typeof startWebTeamHost>[0]): () => TestWebHost {
  let web: TestWebHost | undefined
  beforeEach(async () => {
    const terminal = captureTerminal()
    const started = await startWebTeamHost(script)
    const pair = (extra: Record<string, string> = {}) => pairBrowser(started, terminal, extra)
    web = { ...started, terminal, pair, pairedHeaders: async () => ({ ...JSON_TYPE, [PAIRING_HEADER]: await pair(BROWSER_HEADERS) }) }
  })
  afterEach(async () => {
    vi.restoreAllMocks()
    await web?.host.dispose()
    web = undefined
  })
  return () => web!
}

/** Read the server-sent events named `name` from an open stream, one at a time (their JSON data). */
export function serverEvents(body: ReadableStream<Uint8Array>, name: string): () => Promise<any> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = block.split('\n').find((l) => l.startsWith('data: '))
        if (block.split('\n').includes(`event: ${name}`) && data) return JSON.parse(data.slice(6))
        continue
      }
      const { value, done } = await reader.read()
      if (done) throw new Error('stream ended')
      buffer += decoder.decode(value, { stream: true })
    }
  }
}

/** The latest pairing code the plugin showed on DSH's terminal (collected by `captureTerminal`). */
export function terminalPairingCode(terminal: readonly string[]): string | undefined {
  return terminal
    .map((line) => /pairing code for the team page: (\S+)/.exec(line)?.[1])
    .filter(Boolean)
    .at(-1)
}

/** Pair a browser the way the person does: ask for a code, read it at the terminal, send it back; its token. */
export async function pairBrowser(web: WebTeamHost, terminal: readonly string[], extra: Record<string, string> = {}): Promise<string> {
  const headers = { 'content-type': 'application/json', ...extra }
  await web.send('POST', '/pairing/codes', {}, headers)
  const paired = await web.send('POST', '/pairing', { code: terminalPairingCode(terminal) }, headers)
  if (paired.status !== 201) throw new Error(`pairing failed: ${JSON.stringify(paired.body)}`)
  return paired.body.token
}

/** Collect what the plugin writes on DSH's terminal (stderr) during a test; pairing codes are not echoed. */
export function captureTerminal(): string[] {
  const lines: string[] = []
  const write = process.stderr.write.bind(process.stderr)
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
    lines.push(String(chunk))
    return String(chunk).includes('pairing code') || write(chunk, ...rest)
  })
  return lines
}

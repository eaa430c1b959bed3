// Shared set-up for the secrets tier: a team on the in-process DSH host with DSH's real shell
// tool (shellEnv + bash) and real web server, one scripted model per Bot (`mock/<lower-case
// name>`), a browser paired the way the person pairs the first one (code from the terminal), and
// the small scripted behaviours the tests and the leak bench share.
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { lastToolResults, lastUserText, type Rule, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'
import { startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { terminalPairingCode } from '../../support/web-host.ts'

export interface SecretsTeam {
  host: DshHost
  origin: string
  /** The paired browser's pairing token (a page under test can be given it). */
  token: string
  /** A JSON request to `/bot-team/api<path>`, from the paired browser unless `paired: false`. */
  send(method: string, path: string, body?: unknown, opts?: { paired?: boolean }): Promise<{ status: number; text: string; body: any }>
}

/** A team with the shell tool and the web routes; `terminal` collects what the plugin prints (captureTerminal). */
export async function secretsTeam(scripts: Record<string, Rule>, terminal: string[]): Promise<SecretsTeam> {
  const map: ScriptMap = { mock: { fallback: scripts.mock ?? { text: 'ok' } } }
  for (const [model, rule] of Object.entries(scripts)) map[model] = { fallback: rule }
  const host = await startTeamHost(map, { shell: true })
  await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
  const origin = `http://127.0.0.1:${host.ctx.webServer.port}`
  let token = ''
  const send: SecretsTeam['send'] = async (method, path, body, opts = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' }
    if (opts.paired !== false && token) headers[PAIRING_HEADER] = token
    const res = await fetch(`${origin}/bot-team/api${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, text, body: JSON.parse(text) }
  }
  await send('POST', '/pairing/codes', {})
  const code = terminalPairingCode(terminal)
  const paired = await send('POST', '/pairing', { code })
  if (paired.status !== 201) throw new Error(`pairing failed: ${paired.text}`)
  token = paired.body.token
  return { host, origin, token, send }
}

/** A bash call of the scripted model. */
export const bash = (command: string) => ({ toolCalls: [{ name: 'bash', args: { command, description: 'run a command' } }] })

/**
 * A Bot that asks for GH_TOKEN when told "need the token", and runs `command` whenever a user or
 * plugin message says "run" or "saved"; after any tool step it ends its turn.
 */
export function asker(command: string, name = 'gh-token'): Rule {
  return (req) => {
    if (lastToolResults(req).length) return { text: 'done' }
    const text = lastUserText(req) ?? ''
    if (text.includes('need the token')) return { toolCalls: [{ name: 'request_secret', args: { name, purpose: 'push to GitHub' } }] }
    if (/\brun\b|saved/.test(text)) return bash(command)
    return { text: 'ok' }
  }
}

/** Prints the variable's length and its (masked) value, or "unset". */
export const SHOW = 'echo "len=${#DSH_SECRET_GH_TOKEN} [${DSH_SECRET_GH_TOKEN:-unset}]"'

// e2e helper: pair over HTTP as the person at DSH's terminal does — ask for a code (printed only on
// DSH's terminal, which the test owns as the child's output), then pair with it; returns the token
// the team page would keep in localStorage.
import { once } from 'node:events'
import type { WebProcess } from './e2e.ts'

export async function pairWithTerminalCode(web: WebProcess): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${web.url}/bot-team/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const asked = await post('/pairing/codes', {})
  if (asked.status !== 201) throw new Error(`asking for a pairing code answered ${asked.status}`)
  const codeIn = () => /pairing code for the team page: (\S+)/.exec(web.output())?.[1]
  while (!codeIn()) await Promise.race([once(web.child.stderr!, 'data'), once(web.child.stdout!, 'data')])
  const paired = await post('/pairing', { code: codeIn() })
  if (paired.status !== 201) throw new Error(`pairing answered ${paired.status}`)
  return ((await paired.json()) as { token: string }).token
}

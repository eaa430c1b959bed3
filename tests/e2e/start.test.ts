// e2e (start command): README's `npm start`, run as a user would (no DEEPSEEK_API_KEY), serves
// DSH Web on loopback with the bundle installed, the plugin's route reachable, and a chat in DSH
// Web answered by the offline demo model.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { root } from '../../scripts/pack.ts'
import { answeredLastPrompt, api, untilEvents } from '../support/e2e.ts'

let child: ChildProcess
let url: string
let output = ''

beforeAll(async () => {
  const home = join(mkdtempSync(join(tmpdir(), 'bot-team-start-')), 'home')
  const env = { ...process.env }
  delete env.DEEPSEEK_API_KEY
  delete env.DEEPSEEK_BASE_URL
  child = spawn('npm', ['start', '--', '--port', '0', '--home', home], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  url = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output += c
      const m = /DSH Web is ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (m) resolve(m[1]!)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('close', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)))
  })
})
afterAll(async () => {
  if (child?.exitCode === null) {
    const closed = new Promise((r) => child.once('close', r))
    process.kill(-child.pid!, 'SIGTERM')
    await closed
  }
})

describe('npm start', () => {
  it('says it uses the offline demo model and serves the team route on loopback', async () => {
    expect(output).toContain('no DEEPSEEK_API_KEY: using the offline demo model')
    const status = await fetch(`${url}/bot-team/api/status`)
    expect(status.status).toBe(200)
    expect(await status.json()).toMatchObject({ plugin: 'dsh-bot-team' })
  })

  it('installs quietly: no missing-peer-dependency block for the packages DSH provides', () => {
    expect(output).toContain('DSH Web is ready at')
    expect(output).not.toMatch(/peer/i)
  })

  it('answers a DSH Web chat with the offline demo model', async () => {
    const { sessionId } = await api(url, 'session.create', { cwd: root })
    await api(url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: 'hello there' }] })
    const events = await untilEvents(url, sessionId, answeredLastPrompt, 'the demo answer')
    const reply = JSON.stringify(events.filter((e: any) => e.type === 'assistant/message').at(-1)?.data)
    expect(reply).toContain('offline demo model')
  })
})

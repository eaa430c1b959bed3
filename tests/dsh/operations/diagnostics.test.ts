// The diagnostics log on the real DSH core, in-process: a Bot turn that fails with a provider error
// echoing an API key and a saved secret is logged with both scrubbed.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as botTeam from '../../../src/index.ts'
import { disposedAfterEach, startDshHost } from '../../support/dsh-host.ts'
import { quiesce, userPrompt } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const API_KEY = 'sk-proj-Zy9XwVuTsRqPoNmLkJiHgFeDcBa8765'
const SAVED = 'orchid-lantern-7731'

describe('diagnostics (in-process DSH)', () => {
  it('a failed Bot turn whose error echoes an API key and a saved secret is logged scrubbed', async () => {
    const host = track(
      await startDshHost({ mock: { fallback: { fail: 'server-error', status: 400, message: `invalid credentials: key ${API_KEY}, db password ${SAVED}` } } }),
    )
    await host.ctx.plugin(botTeam, { dir: join(host.home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as botTeam.Config)
    await host.ctx.botDelivery.ready
    await host.ctx.botSecrets.set('db', { value: SAVED, scope: 'all', purpose: 'the database' })
    userPrompt(await host.ctx.botRoster.agentOf('bot-1'), 'hello')
    await quiesce(host)

    const text = await host.ctx.botDiagnostics.read()
    expect(text).not.toContain(API_KEY)
    expect(text).not.toContain(SAVED)
    const failed = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.kind === 'turn-failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ level: 'error', data: { botId: 'bot-1' } })
    expect(failed[0].message).toMatch(/^Main's turn 1 failed: .*invalid credentials: key \[redacted\], db password \[secret:DB\]/)
  })
})

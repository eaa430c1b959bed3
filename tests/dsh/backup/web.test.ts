// The team page's backup download on DSH's real web server (in-process): only the paired page
// gets the archive; it holds the team (state, Sessions) and never the pairing file, and secrets
// only when asked.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeArchive } from '../../../src/backup/format.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()

const pair = () => web().pair()

const download = (body: unknown, token?: string, method = 'POST') =>
  fetch(`${web().origin}/bot-team/api/backup`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { [PAIRING_HEADER]: token } : {}) },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  })

describe('POST /bot-team/api/backup', () => {
  it('gives the paired page an archive of the team, without the pairing file; secrets only when asked', async () => {
    await web().host.ctx.botRoster.create({ kind: 'user' }, { name: 'Ada' })
    writeFileSync(join(web().host.home, 'bot', 'secrets.json'), '{"k":"SECRET-VALUE"}')
    const token = await pair()

    const res = await download({}, token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/octet-stream')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="bot-team-backup-.*\.dshbt"$/)
    const paths = decodeArchive(Buffer.from(await res.arrayBuffer())).map((e) => e.path)
    expect(paths).toContain('bot/state.json')
    expect(paths).not.toContain('bot/pairing.json')
    expect(paths).not.toContain('bot/secrets.json')

    const withSecrets = decodeArchive(Buffer.from(await (await download({ secrets: true }, token)).arrayBuffer()))
    expect(withSecrets.map((e) => e.path)).toContain('bot/secrets.json')
  })

  it('refuses a request without a valid pairing token (a shell, a script), a GET and a bad body, with no archive in the answer', async () => {
    const token = await pair()
    const refused = await download({}, undefined)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as any).error).toMatch(/paired team page/)
    expect((await download({}, 'not-a-token')).status).toBe(403)
    expect((await download(undefined, undefined, 'GET')).status).toBe(405)
    expect((await download({ secrets: 'yes' }, token)).status).toBe(400) // the paired page, a bad body
  })
})

// The leak measure (issue 14) on real DSH bash + shellEnv, in-process: after a scripted leaky Bot
// tries every way it can to leak a secret it only knows as $DSH_SECRET_GH_TOKEN (handoff notes
// included), a scan of the
// whole home finds the literal and its encodings nowhere but bot/secrets.json, the file the Bot
// wrote itself in its working folder, and the one place DSH keeps a pasted prompt raw
// (agent/inbox/spliced); the scripted model never received the literal.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { LEAK_COMMANDS, LEAK_HANDOFFS, LEAK_VALUE, runLeakScenario, scanHome } from './leak-scenario.ts'

const track = disposedAfterEach()

describe('the leak scan', () => {
  it("finds the value 0 times outside bot/secrets.json, the Bot's own file and agent/inbox/spliced, and never in a model request", async () => {
    const { host, result } = await runLeakScenario()
    track(host)
    expect(result.attempts).toBe(LEAK_COMMANDS.length + 3 + LEAK_HANDOFFS)
    // Every command ran with the value in the shell, and the Bot saw only the placeholder.
    expect(result.seen.filter((s) => s.includes('[secret:GH_TOKEN]')).length).toBe(LEAK_COMMANDS.length)
    // Both handoff packages carry what the Bot saw and was told, masked.
    expect(result.packages).toHaveLength(LEAK_HANDOFFS)
    for (const text of result.packages) expect(text).toContain('[secret:GH_TOKEN]')
    expect(result.found).toEqual([])
    expect(result.ownFiles).toEqual([join('bot', 'workspace', 'leaked.txt')])
    expect(result.knownUnmaskable).toHaveLength(1)
    expect(result.knownUnmaskable[0]).toMatch(/^sessions\/.*session\.jsonl \(agent\/inbox\/spliced\)$/)
    expect(result.inRequests).toBe(0)
  })

  it('the scan itself finds a planted copy in any encoding (so a 0 means something)', async () => {
    const host = track(await startTeamHost())
    const dir = join(host.home, 'planted')
    mkdirSync(dir)
    const planted = {
      'hex.txt': Buffer.from(LEAK_VALUE).toString('hex'),
      'b64.txt': Buffer.from(`ab${LEAK_VALUE}`).toString('base64'),
      'json.txt': JSON.stringify({ v: LEAK_VALUE }),
    }
    for (const [name, text] of Object.entries(planted)) writeFileSync(join(dir, name), text)
    const scan = scanHome(host.home, LEAK_VALUE, { dir: join(host.home, 'bot', 'workspace') })
    expect(scan.found.map((f) => f.split(' ')[0]).sort()).toEqual(
      Object.keys(planted)
        .map((n) => join('planted', n))
        .sort(),
    )
  })
})

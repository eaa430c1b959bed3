// Paired browsers: the one decider of "is this request paired", on a real pairing file in a temp
// folder, with a fake clock for code expiry.
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HttpError } from '../../../src/web/http.ts'
import { MAX_DEVICES } from '../../../src/web/pairing-file.ts'
import { CODE_TTL_MS, MAX_FAILED_ATTEMPTS, PAIRING_HEADER, Pairing, WINDOW_TTL_MS, deviceLabel, hashToken, type QuietPort } from '../../../src/web/pairing.ts'

let dir: string
let file: string
let clock: number
let printed: string[]
let pairing: Pairing

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bot-team-pairing-'))
  file = join(dir, 'pairing.json')
  clock = Date.parse('2026-01-01T00:00:00Z')
  printed = []
  pairing = new Pairing({ file, announce: (line) => printed.push(line), now: () => clock })
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const as = (token?: string) => ({ headers: token ? { [PAIRING_HEADER]: token } : {} })
const printedCode = () => /code for the team page: (\S+)/.exec(printed.at(-1) ?? '')?.[1]

async function refusal(run: () => Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await run()
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, message: error.message }
    throw error
  }
  throw new Error('expected a refusal')
}

/** Pair the first browser the way a person does: ask for a code, read it off the terminal. */
async function pairFirst(ua = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0') {
  const grant = await pairing.createCode(as())
  expect(grant).toEqual({ shownIn: 'terminal', expiresAt: new Date(clock + CODE_TTL_MS).toISOString() })
  return pairing.pair(printedCode()!, ua)
}

describe('pairing a browser', () => {
  it('refuses a request without a token or with an unknown one', async () => {
    expect(await pairing.check(as())).toEqual({ paired: false, reason: 'no pairing token' })
    expect(await pairing.check(as('A'.repeat(43)))).toEqual({ paired: false, reason: 'unknown pairing token' })
    expect(await refusal(() => pairing.requirePaired(as()))).toMatchObject({ status: 403, message: expect.stringMatching(/paired team page/) })
  })

  it('prints the first code on the terminal only, and pairs with it once', async () => {
    const grant = await pairing.createCode(as())
    expect(JSON.stringify(grant)).not.toContain(printedCode()!.slice(0, 4)) // never in the answer
    expect(printed).toHaveLength(1)
    expect(await pairing.createCode(as())).toEqual(grant) // asking again does not print another
    expect(printed).toHaveLength(1)

    const { token, device } = await pairing.pair(printedCode()!.toLowerCase(), 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0')
    expect(device).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      label: 'Chrome on Linux',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: '2026-01-01T00:00:00.000Z',
    })
    expect(await pairing.check(as(token))).toMatchObject({ paired: true, device: { id: device.id } })
    expect(await refusal(() => pairing.pair(printedCode()!, undefined))).toMatchObject({ status: 403, message: expect.stringMatching(/Wrong or expired/) })
  })

  it('keeps only the token hash, in a file only the user can read', async () => {
    const { token } = await pairFirst()
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(token)
    expect(JSON.parse(text).devices[0].tokenHash).toBe(hashToken(token))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const status = await pairing.status(as(token))
    expect(JSON.stringify(status)).not.toContain(hashToken(token))
    expect(status).toMatchObject({ paired: true, nextPairing: 'paired-browser', devices: [{ label: 'Chrome on Linux' }] })
  })

  it('once a browser is paired, another pairs only by a code that browser shows', async () => {
    const first = await pairFirst()
    expect(await refusal(() => pairing.createCode(as()))).toMatchObject({ status: 403, message: expect.stringMatching(/Pair another browser/) })
    expect(printed).toHaveLength(1)
    const grant = await pairing.createCode(as(first.token))
    expect(grant).toEqual({ code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/), expiresAt: expect.any(String) })
    const second = await pairing.pair((grant as { code: string }).code, 'curl/8.5.0')
    expect(second.device.label).toBe('curl')
    expect((await pairing.status(as(second.token))).devices.map((d) => d.label)).toEqual(['Chrome on Linux', 'curl'])
  })

  it('lets a code expire', async () => {
    const first = await pairFirst()
    const { code } = (await pairing.createCode(as(first.token))) as { code: string }
    clock += CODE_TTL_MS
    expect(await refusal(() => pairing.pair(code, undefined))).toMatchObject({ status: 403 })
  })

  it(`voids every live code after ${MAX_FAILED_ATTEMPTS} wrong ones`, async () => {
    const first = await pairFirst()
    const { code } = (await pairing.createCode(as(first.token))) as { code: string }
    for (let i = 1; i < MAX_FAILED_ATTEMPTS; i++) {
      expect(await refusal(() => pairing.pair('WRONG-CODE', undefined))).toMatchObject({
        status: 403,
        message: expect.stringMatching(new RegExp(`${MAX_FAILED_ATTEMPTS - i} more`)),
      })
    }
    expect(await refusal(() => pairing.pair('WRONG-CODE', undefined))).toMatchObject({ status: 403, message: expect.stringMatching(/voided/) })
    expect(await refusal(() => pairing.pair(code, undefined))).toMatchObject({ status: 403 })
    expect((await pairing.status(as())).devices).toHaveLength(1)
  })

  it('unpairs a device (paired requests only); its token stops working', async () => {
    const first = await pairFirst()
    const { code } = (await pairing.createCode(as(first.token))) as { code: string }
    const second = await pairing.pair(code, undefined)
    expect(await refusal(() => pairing.unpair(as(), second.device.id))).toMatchObject({ status: 403 })
    expect(await refusal(() => pairing.unpair(as(first.token), 'ffffffffffffffff'))).toMatchObject({ status: 404 })
    expect(await pairing.unpair(as(first.token), second.device.id)).toEqual(second.device)
    expect(await pairing.check(as(second.token))).toEqual({ paired: false, reason: 'unknown pairing token' })
    expect(await pairing.check(as(first.token))).toMatchObject({ paired: true })
  })

  it('forgets every browser when the person deletes the pairing file, and the terminal code comes back', async () => {
    const first = await pairFirst()
    unlinkSync(file)
    expect(await pairing.check(as(first.token))).toMatchObject({ paired: false })
    expect(await pairing.status(as())).toMatchObject({ nextPairing: 'terminal', devices: [] })
    expect(await pairing.createCode(as())).toMatchObject({ shownIn: 'terminal' })
    expect(printed).toHaveLength(2)
  })

  it('fails closed on a broken pairing file and says how to recover', async () => {
    const first = await pairFirst()
    writeFileSync(file, '{"version":1,"devices":[{"id":"x"}]}')
    expect(await pairing.check(as(first.token))).toMatchObject({ paired: false, reason: expect.stringMatching(/pairing\.json/) })
    expect(await refusal(() => pairing.createCode(as()))).toMatchObject({ status: 409, message: expect.stringMatching(/Delete it/) })
    expect((await pairing.status(as())).problem).toMatch(/Delete it/)
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"devices":[{"id":"x"}]}') // nothing written over it
  })

  it(`refuses a ${MAX_DEVICES + 1}th device`, async () => {
    const first = await pairFirst()
    for (let i = 1; i < MAX_DEVICES; i++) {
      const { code } = (await pairing.createCode(as(first.token))) as { code: string }
      await pairing.pair(code, undefined)
    }
    const { code } = (await pairing.createCode(as(first.token))) as { code: string }
    expect(await refusal(() => pairing.pair(code, undefined))).toMatchObject({ status: 409, message: expect.stringMatching(/unpair one/) })
    expect((await pairing.status(as())).devices).toHaveLength(MAX_DEVICES)
  })

  it('records when a device was last used, at most once a minute', async () => {
    const { token } = await pairFirst()
    clock += 30_000
    await pairing.check(as(token))
    expect((await pairing.status(as())).devices[0]!.lastUsedAt).toBe('2026-01-01T00:00:00.000Z')
    clock += 60_000
    await pairing.check(as(token))
    expect((await pairing.status(as())).devices[0]!.lastUsedAt).toBe('2026-01-01T00:01:30.000Z')
  })

  it('names devices from their User-Agent, bounded and printable', () => {
    expect(deviceLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15')).toBe('Safari on macOS')
    expect(deviceLabel('Mozilla/5.0 (Windows NT 10.0) Chrome/130.0 Edg/130.0')).toBe('Edge on Windows')
    expect(deviceLabel('Mozilla/5.0 (Linux; Android 14) Chrome/130.0 Mobile Safari/537.36')).toBe('Chrome on Android')
    expect(deviceLabel('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/130.0 Safari/537.36')).toBe('Headless Chrome on Linux')
    expect(deviceLabel(undefined)).toBe('unknown client')
    expect(deviceLabel('\u0000evil\u202e' + 'x'.repeat(100))).toBe(`evil${'x'.repeat(56)}`)
  })
})

/** A stand-in for DSH's chats: busy or quiet as the test says, with its holds and turn listeners counted. */
function fakeQuiet() {
  const state = { busy: undefined as string | undefined, holds: 0, listeners: new Set<() => void>() }
  const port: QuietPort = {
    busy: () => state.busy,
    hold: () => {
      state.holds++
      return () => {
        state.holds--
      }
    },
    onTurnStart: (listener) => {
      state.listeners.add(listener)
      return () => state.listeners.delete(listener)
    },
  }
  const turnStarts = () => {
    for (const l of [...state.listeners]) l()
  }
  return { state, port, turnStarts }
}

describe('the one-time pairing window (no terminal)', () => {
  const desktop = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36'

  it('opens while nobody is paired and every chat is idle, holds Bot work while open, and pairs the browser that opened it, once', async () => {
    const quiet = fakeQuiet()
    pairing = new Pairing({ file, announce: (line) => printed.push(line), now: () => clock, quiet: quiet.port })
    expect(await pairing.status(as())).toMatchObject({ nextPairing: 'terminal', window: true })
    const { window, expiresAt } = await pairing.openWindow()
    expect(expiresAt).toBe(new Date(clock + WINDOW_TTL_MS).toISOString())
    expect(quiet.state.holds).toBe(1)
    const { token, device } = await pairing.pairInWindow(window, desktop)
    expect(device.label).toBe('Chrome on Linux (window)')
    expect(await pairing.check(as(token))).toMatchObject({ paired: true })
    expect(quiet.state.holds).toBe(0)
    expect(quiet.state.listeners.size).toBe(0)
    expect(await refusal(() => pairing.pairInWindow(window, desktop))).toMatchObject({ status: 403 })
    expect(printed).toEqual([]) // nothing on the terminal
    expect(await pairing.status(as())).toMatchObject({ nextPairing: 'paired-browser' })
    expect((await pairing.status(as())).window).toBeUndefined()
  })

  it('does not open while a chat works (a Bot running its shell is in a turn), and says who', async () => {
    const quiet = fakeQuiet()
    pairing = new Pairing({ file, now: () => clock, quiet: quiet.port })
    quiet.state.busy = 'Main is working'
    expect(await refusal(() => pairing.openWindow())).toMatchObject({
      status: 409,
      message: expect.stringMatching(/^Main is working\. A pairing window opens only while every chat is idle/),
    })
    expect(quiet.state.holds).toBe(0)
  })

  it('closes when any chat starts a turn, and a claim after that fails and pairs nothing', async () => {
    const quiet = fakeQuiet()
    pairing = new Pairing({ file, now: () => clock, quiet: quiet.port })
    const { window } = await pairing.openWindow()
    quiet.turnStarts()
    expect(quiet.state.holds).toBe(0)
    expect(await refusal(() => pairing.pairInWindow(window, desktop))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/No pairing window is open/),
    })
    expect((await pairing.status(as())).devices).toEqual([])
  })

  it('closes after its minute; a wrong id pairs nothing and closes it; one window at a time; none once a browser is paired', async () => {
    const quiet = fakeQuiet()
    pairing = new Pairing({ file, announce: (line) => printed.push(line), now: () => clock, quiet: quiet.port })
    const first = await pairing.openWindow()
    expect(await refusal(() => pairing.openWindow())).toMatchObject({ status: 409, message: expect.stringMatching(/open already/) })
    clock += WINDOW_TTL_MS
    expect(await refusal(() => pairing.pairInWindow(first.window, desktop))).toMatchObject({ status: 403 })
    expect(quiet.state.holds).toBe(0)
    await pairing.openWindow()
    expect(await refusal(() => pairing.pairInWindow('not-the-id', desktop))).toMatchObject({ status: 403 })
    expect(quiet.state.holds).toBe(0)
    await pairFirst()
    expect(await refusal(() => pairing.openWindow())).toMatchObject({ status: 403, message: expect.stringMatching(/paired already/) })
  })

  it('is not offered without DSH\u2019s chats to watch', async () => {
    expect((await pairing.status(as())).window).toBeUndefined()
    expect(await refusal(() => pairing.openWindow())).toMatchObject({ status: 409 })
  })
})

// e2e (the DSH Desktop stand-in: a profile named `desktop` that loads DSH's web-app bundle, DSH
// Web's own client in Chromium, the packed bundle): the first browser pairs with no terminal. A
// Bot's shell — DSH's real bash tool in the Main Bot's turn, curl on loopback — that asks for the
// one-time pairing window reaches nothing at its default network level (`internet`: the plugin's
// routes are not on its loopback; a shell that reaches them, at `full`, is refused while its own
// turn runs: tests/dsh/web/pairing-api.test.ts) and pairs nothing; the person in the
// window then pairs it from Team settings with one click (nothing is printed on DSH's terminal) and
// pauses the team from there, which needs a paired browser. Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { PAIRING_HEADER } from '../../src/web/pairing.ts'
import { openDshWeb, screenshot, sendInComposer, useSurface } from '../support/surface.ts'

const POST = `curl -s -w ' status=%{http_code}' -X POST -H 'content-type: application/json'`
const COMMAND = `${POST} -d '{}' "$DSH_WEB_URL/bot-team/api/pairing/window"; echo; ${POST} -d '{"window":"guess"}' "$DSH_WEB_URL/bot-team/api/pairing"; echo`

function script(req: RecordedRequest): Reply {
  const results = lastToolResults(req)
  if (results.length) return { text: `shell said: ${results.map((r) => r.text).join(' ')}` }
  if (/pair us/.test(lastUserText(req) ?? '')) return { toolCalls: [{ name: 'bash', args: { command: COMMAND, description: 'pair the team page' } }] }
  return { text: 'ok' }
}

const surface = useSurface('desktop-pairing', () => ({ fallback: script }), { desktop: true })

describe('pairing in DSH Desktop (no terminal)', () => {
  it("a Bot's shell asking for the pairing window is refused and pairs nothing; the person pairs the window from Team settings and may pause the team", async () => {
    const url = surface().web.url
    const pairing = async (token?: string) =>
      (await fetch(`${url}/bot-team/api/pairing`, { headers: token ? { [PAIRING_HEADER]: token } : {} })).json() as Promise<any>
    const page = await surface().browser.newPage()
    await openDshWeb(page, url)

    // The Bot's shell, inside its own running turn.
    await page.locator('[data-bot="Main"] .bt-row').click()
    await sendInComposer(page, 'pair us')
    const said = page.getByText(/^shell said:/)
    await said.waitFor({ timeout: 60_000 })
    const shell = (await said.textContent()) ?? ''
    expect(shell.match(/status=000/g)).toHaveLength(2)
    expect(await pairing()).toMatchObject({ paired: false, devices: [], window: true })
    await page.locator('[data-bot="Main"] [data-status="idle"]').waitFor({ timeout: 30_000 })

    // The person at the window: Team settings, "Pair this window".
    await page.getByTestId('bt-settings').click()
    const dialog = page.getByTestId('bt-settings-dialog')
    // The panel is drawn first and marked paired or not once its pairing answer arrives.
    const windowPairing = dialog.locator('[data-testid="bt-window-pairing"][data-paired]')
    await windowPairing.waitFor({ timeout: 15_000 })
    expect(await windowPairing.getAttribute('data-paired')).toBe('false')
    await screenshot(page, 'desktop-pairing')
    await dialog.getByTestId('bt-pair-window').click()
    await dialog.locator('[data-testid="bt-window-pairing"][data-paired="true"]').waitFor({ timeout: 15_000 })
    const token = await page.evaluate(() => localStorage.getItem('bot-team:pairing-token'))
    expect(await pairing(token ?? undefined)).toMatchObject({ paired: true, devices: [{ label: 'Headless Chrome on Linux (window)' }] })
    expect(surface().web.output()).not.toMatch(/pairing code/)

    // Paired: the pause switch works from the same dialog.
    await dialog.getByTestId('bt-pause').click()
    await page.getByTestId('bt-paused').waitFor()
    expect(((await (await fetch(`${url}/bot-team/api/pause`)).json()) as any).paused).toMatchObject({ by: 'user' })
  })
})

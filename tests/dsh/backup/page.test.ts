// The team page's "Download a backup" button in Chromium (DSH's real web server, in-process): an
// unpaired page is told why it gets nothing; once paired, a click downloads an archive of the team
// under the page's CSP.
import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeArchive } from '../../../src/backup/format.ts'
import { launchChromium } from '../../support/browser.ts'
import { terminalPairingCode, webTeamHostPerTest } from '../../support/web-host.ts'

let browser: Browser

beforeAll(async () => {
  browser = await launchChromium()
})
afterAll(() => browser?.close())

const web = webTeamHostPerTest()
const terminalCode = () => terminalPairingCode(web().terminal)

describe('the Backup section of the team page', () => {
  it('tells an unpaired page why there is no backup; once paired, the button downloads the team archive', async () => {
    const page = await browser.newPage({ locale: 'en-US', acceptDownloads: true })
    const violations: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    await page.goto(`${web().origin}/bot-team`)
    await page.waitForSelector('#pairing-state[data-state="unpaired"]')
    expect(await page.textContent('#backup-download')).toBe('Download a backup')

    await page.click('#backup-download')
    await page.waitForSelector('#backup-state[data-state="error"]')
    expect(await page.textContent('#backup-state')).toMatch(/paired team page/)

    await page.click('#pairing-start')
    await page.waitForSelector('#pairing-code-input', { state: 'visible' })
    await page.fill('#pairing-code-input', terminalCode()!)
    await page.click('#pairing-submit')
    await page.waitForSelector('#pairing-state[data-state="paired"]')

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#backup-download')])
    expect(download.suggestedFilename()).toMatch(/^bot-team-backup-.*\.dshbt$/)
    await page.waitForSelector('#backup-state[data-state="done"]')
    const entries = decodeArchive(readFileSync((await download.path())!))
    const state = JSON.parse(Buffer.from(entries.find((e) => e.path === 'bot/state.json')!.data).toString('utf8'))
    expect(Object.values(state.bots).map((b: any) => b.name)).toEqual(['Main'])
    expect(entries.map((e) => e.path)).not.toContain('bot/pairing.json')
    expect(violations).toEqual([])
    await page.close()
  })
})

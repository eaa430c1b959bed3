// e2e (DSH Web + Chromium + the packed bundle): the secret card inside DSH Web's own shell. The
// Main Bot calls request_secret; the card appears by push (no reload), names the Bot, the variable
// and the purpose, takes the value in a masked plain input outside any form, refuses an unpaired
// browser with the API's message (nothing saved), and saves from a paired one — after which the
// value is nowhere in the page. Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { openDshWeb, secretAskingScript, sendInComposer, useSurface } from '../support/surface.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'

const VALUE = 'ghp_CardValue_0123456789abcdefXYZ'

const surface = useSurface('surface-secrets', secretAskingScript)

async function savedSecrets(): Promise<any> {
  return (await fetch(`${surface().web.url}/bot-team/api/secrets`)).json()
}

describe('the secret card inside DSH Web', () => {
  it('appears by push when a Bot asks, refuses an unpaired browser, and saves from a paired one without leaving the value in the page', async () => {
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    await page.locator('[data-bot="Main"] .bt-row').click()
    await sendInComposer(page, 'we need a token to publish')

    // The card comes by the team stream's push: no reload.
    const card = page.getByTestId('bt-secret-card')
    await card.waitFor({ timeout: 30_000 })
    await expect(card.locator('h3').textContent()).resolves.toBe('Main asks for $DSH_SECRET_GH_TOKEN')
    await expect(card.textContent()).resolves.toContain('publish the release')
    await expect(card.textContent()).resolves.toContain('not a file permission')
    // A plain masked text input, outside any form, no autofill; loopback: no clear-text warning.
    const input = card.getByLabel('Value (never shown in the chat)')
    expect(await input.getAttribute('type')).toBe('text')
    expect(await input.getAttribute('autocomplete')).toBe('off')
    expect(
      await input.evaluate((el) => el.closest('form') === null && (globalThis as any).getComputedStyle(el).getPropertyValue('-webkit-text-security')),
    ).toBe('disc')
    expect(await page.getByTestId('bt-secret-insecure').count()).toBe(0)
    await card.getByTestId('bt-secret-unpaired').waitFor()

    // Unpaired: the API's refusal is shown, the input is emptied, nothing is saved.
    await input.fill(VALUE)
    await card.getByTestId('bt-secret-save').click()
    // The error line is in the card from the start, hidden: wait until the refusal shows it.
    const error = card.getByTestId('bt-secret-error')
    await error.waitFor({ state: 'visible' })
    await expect(error.textContent()).resolves.toMatch(/paired/)
    expect(await input.inputValue()).toBe('')
    expect((await savedSecrets()).secrets).toEqual([])
    expect(await page.content()).not.toContain(VALUE)

    // Paired (the token the team page keeps in this origin's storage): saved for all Bots.
    const token = await pairWithTerminalCode(surface().web)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await card.getByLabel('Value (never shown in the chat)').fill(VALUE)
    await card.getByLabel('All Bots').check()
    await card.getByTestId('bt-secret-save').click()
    await card.waitFor({ state: 'detached' })
    const after = await savedSecrets()
    expect(after.requests).toEqual([])
    expect(after.secrets.map((s: any) => [s.name, s.scope])).toEqual([['GH_TOKEN', 'all']])
    expect(await page.content()).not.toContain(VALUE)
    expect(await page.locator('input').evaluateAll((els, v) => els.some((i) => (i as any).value === v), VALUE)).toBe(false)
  })
})

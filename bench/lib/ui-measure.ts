// The browser half of `bench ui`: Chromium pages on a running DSH Web, timed from inside the page.
//   listLoadMs  navigation → the page first shows `target` entries matching `selector` (a
//               MutationObserver installed before any page script runs; `performance.now()` is
//               measured from the navigation's start, so the figure is the browser's own)
//   pushMs      a Bot's prompt sent (DSH's `session.prompt`) → its sidebar pill says "working"
//               (the same observer stamps the attribute change with the wall clock), and the part
//               of it from the team event reaching the page to the pill (the page's drawing)
// Deliberately narrow: no DSH Web or team set-up (bench/ui.ts does that), no statistics.
import type { BrowserContext, Page } from 'playwright-core'
import { api } from '../../tests/support/e2e.ts'

// In-page code runs in the browser; this project compiles without the DOM library, so the page's
// globals are reached through `globalThis`.
type PageGlobals = {
  __benchList?: { selector: string; target: number; at?: number }
  __benchWorking?: Record<string, number>
  __benchTeamEvents?: number[]
  EventSource?: new (url: string, init?: unknown) => { addEventListener(type: string, fn: () => void): void }
  document: { querySelectorAll(selector: string): Iterable<{ closest(s: string): { getAttribute(n: string): string | null } | null }> & { length: number } }
  MutationObserver: new (fn: () => void) => { observe(target: unknown, options: Record<string, unknown>): void }
}

/** Watch, in every document of `context`, for `selector` to match `target` elements; the moment lands in `__benchList.at` of the page. */
export async function watchList(context: BrowserContext, selector: string, target: number): Promise<void> {
  await context.addInitScript(
    ({ selector, target }) => {
      const page = globalThis as unknown as PageGlobals
      const { document } = page
      const state: { selector: string; target: number; at?: number } = { selector, target }
      const working: Record<string, number> = {}
      page.__benchList = state
      page.__benchWorking = working
      // When each `team` event of the plugin's stream reached the page (a listener added before the
      // page's own), so a push splits into "reached the page" and "drawn".
      const arrivals: number[] = []
      page.__benchTeamEvents = arrivals
      const Native = page.EventSource
      if (Native) {
        page.EventSource = class extends Native {
          constructor(url: string, init?: unknown) {
            super(url, init)
            this.addEventListener('team', () => {
              arrivals.push(Date.now())
              if (arrivals.length > 50) arrivals.shift()
            })
          }
        }
      }
      const check = () => {
        if (state.at === undefined && document.querySelectorAll(state.selector).length >= state.target) state.at = performance.now()
        // The status pills: the first time each Bot's pill says "working", by the wall clock.
        for (const pill of document.querySelectorAll('[data-bot] [data-status="working"]')) {
          const name = pill.closest('[data-bot]')?.getAttribute('data-bot')
          if (name && working[name] === undefined) working[name] = Date.now()
        }
      }
      new page.MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-status'] })
    },
    { selector, target },
  )
}

/** How many elements match `selector` once the page settled (the target of later loads). */
export async function settledCount(page: Page, selector: string, quietMs = 1500): Promise<number> {
  let last = -1
  for (;;) {
    const n = await page.locator(selector).count()
    if (n === last && n > 0) return n
    last = n
    await page.waitForTimeout(quietMs)
  }
}

/** Navigate and return the in-page time from the navigation's start to the list being complete. */
export async function listLoadMs(page: Page, url: string, timeoutMs = 60_000): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' })
  const handle = await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__benchList?.at, null, { timeout: timeoutMs, polling: 50 })
  return (await handle.jsonValue()) as number
}

/**
 * Prompt `sessionId` (DSH Web's own API) and return the time until the page's pill for `botName`
 * says "working": the prompt call's start by this process's wall clock to the observer's stamp
 * by the page's (the same machine's clock).
 */
export async function pushMs(
  page: Page,
  url: string,
  botName: string,
  sessionId: string,
  text: string,
  timeoutMs = 30_000,
): Promise<{ total: number; drawn: number }> {
  await page.evaluate((name) => {
    delete (globalThis as unknown as PageGlobals).__benchWorking![name]
  }, botName)
  const sent = Date.now()
  await api(url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] })
  await page.waitForFunction((name) => (globalThis as unknown as PageGlobals).__benchWorking?.[name], botName, { timeout: timeoutMs, polling: 20 })
  const [seen, arrived] = await page.evaluate((name) => {
    const g = globalThis as unknown as PageGlobals
    const at = g.__benchWorking![name]!
    return [at, Math.max(...(g.__benchTeamEvents ?? []).filter((t) => t <= at))]
  }, botName)
  // `drawn`: the last team event that reached the page before the pill changed → the pill.
  return { total: seen - sent, drawn: seen - arrived }
}

/** Wait until the pill for `botName` is back to idle. */
export async function untilIdle(page: Page, botName: string, timeoutMs = 30_000): Promise<void> {
  await page.locator(`[data-bot="${botName}"] [data-status="idle"]`).waitFor({ timeout: timeoutMs })
}

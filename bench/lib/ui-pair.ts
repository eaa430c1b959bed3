// The side-by-side half of the UI benches: our page and DSH Web's own session browser ("In one
// list") in two Chromium contexts, each warmed once, then ROUNDS timed loads alternating which
// side goes first. Also the small helpers both benches print with (median, seconds, a lap timer).
// Deliberately narrow: no DSH Web or team set-up; the in-page timing is `ui-measure.ts`.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { listLoadMs, settledCount, watchList } from './ui-measure.ts'

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

/** A lap timer: each call returns the time since the previous one (or since it was made), in seconds. */
export function lapTimer(): () => string {
  let lap = performance.now()
  return () => {
    const now = performance.now()
    const ms = now - lap
    lap = now
    return seconds(ms)
  }
}

/** DSH Web's first-visit notice (once per home), if it shows. */
export async function dismissNotice(page: Page): Promise<void> {
  await page
    .getByRole('button', { name: /^(Continue|继续)$/ })
    .click({ timeout: 5000 })
    .catch(() => {})
}

const DSH_ROWS = '[role="tree"] [role="treeitem"]'

export type SideBySide = { oursMs: number[]; dshMs: number[]; oursTarget: number; dshTarget: number; oursPage: Page; oursContext: BrowserContext }

/**
 * Load `ours.url` (complete when `ours.selector` matches its settled count) and `dshUrl` (DSH's
 * list in one list, every row drawn) once each to warm them, let `check` refuse the counts, then
 * time `rounds` loads of each, alternating which goes first.
 */
export async function sideBySide(
  browser: Browser,
  ours: { url: string; selector: string },
  dshUrl: string,
  rounds: number,
  check: (oursTarget: number, dshTarget: number) => void,
): Promise<SideBySide> {
  const viewport = { width: 1280, height: 900 }
  const oursContext = await browser.newContext({ viewport })
  const dshContext = await browser.newContext({ viewport })
  const oursPage = await oursContext.newPage()
  const dshPage = await dshContext.newPage()
  await oursPage.goto(ours.url)
  await dismissNotice(oursPage)
  await dshPage.goto(dshUrl)
  await dismissNotice(dshPage)
  await dshPage.getByRole('button', { name: 'View options' }).click()
  await dshPage.getByText('In one list').click()
  const oursTarget = await settledCount(oursPage, ours.selector)
  const dshTarget = await settledCount(dshPage, DSH_ROWS)
  check(oursTarget, dshTarget)
  await watchList(oursContext, ours.selector, oursTarget)
  await watchList(dshContext, DSH_ROWS, dshTarget)
  await listLoadMs(oursPage, ours.url)
  await listLoadMs(dshPage, dshUrl)
  const oursMs: number[] = []
  const dshMs: number[] = []
  for (let round = 0; round < rounds; round++) {
    const sides = [() => listLoadMs(oursPage, ours.url).then((ms) => oursMs.push(ms)), () => listLoadMs(dshPage, dshUrl).then((ms) => dshMs.push(ms))]
    for (const side of round % 2 ? sides.reverse() : sides) await side()
  }
  return { oursMs, dshMs, oursTarget, dshTarget, oursPage, oursContext }
}

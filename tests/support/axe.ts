// e2e helper: an axe-core check scoped to the plugin's own DOM inside DSH Web (DSH's own findings
// are not ours). axe-core is a devDependency loaded from node_modules.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

/** Everything the plugin draws into DSH Web's shell (sidebar, badge, dialogs, cards, chat lines). */
export const PLUGIN_DOM = ['[data-testid="bt-team-sidebar"]', '[data-testid="bt-session-badge"]', '.bt-dialog', '.bt-secrets', '.bt-line', '.bt-quiet']

export interface AxeFinding {
  id: string
  impact: string
  help: string
  targets: string[]
}

/** axe-core's browser script (a devDependency: a missing install is an error, never a skip). */
export function axeSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
}

/** Serious and critical axe findings within the plugin's DOM on the page as it is now. */
export function pluginAxeFindings(page: Page, source: string): Promise<AxeFinding[]> {
  return axeFindings(page, source, PLUGIN_DOM)
}

/** Serious and critical axe findings within `selectors` (those present) on the page as it is now. */
export async function axeFindings(page: Page, source: string, selectors: readonly string[]): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: source })
  return page.evaluate(async (selectors) => {
    const doc = (globalThis as any).document
    const include = selectors.filter((s: string) => doc.querySelector(s)).map((s: string) => [s])
    if (include.length === 0) throw new Error(`none of ${selectors.join(', ')} is on the page`)
    const result = await (globalThis as any).axe.run({ include }, { resultTypes: ['violations'] })
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 10) }))
  }, selectors)
}

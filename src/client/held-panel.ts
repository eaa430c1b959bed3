/**
 * Settings held for the person's confirmation (a restore's raises, folders from before an
 * upgrade: `GET /bot-team/api/held`), each with Confirm and Let go; hidden while there are none.
 * One panel for the team page and DSH Web's Team settings; confirming needs a paired browser, and
 * every check is the API's (`web/held-routes.ts`).
 */
import { errorText } from '../core/errors.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import { callApi } from './team-client.ts'

interface HeldView {
  id: string
  text: string
}

/** The held settings of a `/held` answer, checked for shape (pure); bounded to 100. */
export function readHeld(value: unknown): HeldView[] {
  const list = (value as { held?: unknown } | undefined)?.held
  if (!Array.isArray(list)) return []
  return list.filter((x): x is HeldView => !!x && typeof x.id === 'string' && typeof x.text === 'string').slice(0, 100)
}

export function mountHeld(root: HTMLElement, deps: { t: Translate }): Panel {
  const { t } = deps
  let live = true
  const list = el('ul', { id: 'held-list', className: 'bt-list', attrs: { 'aria-labelledby': 'held-title' } })
  const problem = el('p', { id: 'held-problem', className: 'bt-err', attrs: { role: 'alert' } })
  problem.hidden = true
  const box = el(
    'div',
    { id: 'held', className: 'bt-panel' },
    el('h3', { id: 'held-title', className: 'bt-sec', text: t('held.title') }),
    el('p', { className: 'bt-hint bt-left', text: t('held.note') }),
    problem,
    list,
  )
  box.hidden = true
  fill(root, box)
  const show = (held: HeldView[]) => {
    if (!live) return
    box.hidden = held.length === 0
    fill(
      list,
      ...held.map((item) => {
        const act = (action: 'confirm' | 'dismiss', words: string) => {
          const b = button(words, () => void decide(item.id, action))
          b.dataset.action = action
          return b
        }
        return el('li', { attrs: { 'data-held-id': item.id } }, `${item.text} `, act('confirm', t('held.confirm')), act('dismiss', t('held.dismiss')))
      }),
    )
  }
  const fail = (error: unknown) => {
    if (!live) return
    problem.textContent = errorText(error)
    problem.hidden = false
  }
  const load = async () => {
    try {
      show(readHeld(await callApi('GET', '/held')))
    } catch (error) {
      fail(error)
    }
  }
  const decide = async (id: string, action: 'confirm' | 'dismiss') => {
    try {
      show(readHeld(await callApi('POST', `/held/${encodeURIComponent(id)}/${action}`, {})))
      problem.hidden = true
    } catch (error) {
      fail(error)
    }
  }
  void load()
  return {
    refresh: () => void load(),
    dispose: () => {
      live = false
    },
  }
}

/**
 * Each Bot's network level on the team page (`PUT /bot-team/api/bots/<id>/network`): `internet`
 * (the default), `none` or `full`, what the level opens, `full`'s warning, and the one message a Bot
 * gets where this machine cannot give it a network of its own. Setting a level needs a paired
 * browser; an unpaired one is told so and where to pair. Every check is the API's.
 */
import { errorText } from '../core/errors.ts'
import type { BotView } from '../web/team-view.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import { ApiError, callApi } from './team-client.ts'

const LEVELS = ['internet', 'none', 'full'] as const

export interface NetworkDeps {
  t: Translate
  pair: () => void
  /** The live Bots as the pushed team view has them. */
  bots: () => readonly BotView[]
}

export function mountNetwork(root: HTMLElement, deps: NetworkDeps): Panel {
  const { t } = deps
  let busy = false
  const list = el('div', {})
  const outcome = el('div', {})
  fill(
    root,
    el('div', { className: 'bt-panel', testid: 'bt-network-panel' }, el('p', { className: 'bt-hint bt-left', text: t('network.intro') }), list, outcome),
  )

  const draw = () => {
    const rows = deps.bots().map((bot) => {
      const id = `bt-network-${bot.id}`
      const select = el('select', { id, testid: `bt-network-${bot.name}`, on: { change: () => void set(bot, select.value) } })
      for (const level of LEVELS) {
        const option = el('option', { text: t(`network.${level}`), attrs: { value: level } })
        option.selected = level === bot.network
        select.append(option)
      }
      return el(
        'div',
        { className: 'bt-field', attrs: { 'data-level': bot.network } },
        el('label', { text: bot.name, attrs: { for: id } }),
        select,
        el('p', { className: 'bt-hint bt-left', text: t(`network.${bot.network}.means`) }),
        bot.network === 'full' ? el('p', { className: 'bt-err', testid: 'bt-network-full-warning', text: t('network.fullWarning') }) : null,
        bot.networkProblem ? el('p', { className: 'bt-err', testid: 'bt-network-problem', text: bot.networkProblem, attrs: { role: 'alert' } }) : null,
      )
    })
    fill(list, ...rows)
  }
  const set = async (bot: BotView, level: string) => {
    if (busy) return
    busy = true
    try {
      const answer = (await callApi('PUT', `/bots/${encodeURIComponent(bot.id)}/network`, { level })) as { problem?: string }
      fill(
        outcome,
        answer.problem
          ? el('p', { className: 'bt-err', text: answer.problem, attrs: { role: 'alert' } })
          : el('p', { className: 'bt-hint bt-left', text: t('network.saved', { name: bot.name }) }),
      )
    } catch (error) {
      const unpaired = error instanceof ApiError && error.status === 403
      fill(
        outcome,
        unpaired
          ? el(
              'p',
              { className: 'bt-hint bt-left', testid: 'bt-network-unpaired', attrs: { role: 'alert' } },
              `${t('network.unpaired')} `,
              button(t('pairing.go'), deps.pair),
            )
          : el('p', { className: 'bt-err', testid: 'bt-network-error', text: errorText(error), attrs: { role: 'alert' } }),
      )
    } finally {
      busy = false
      // The pushed view may have come while the call was out (it was not drawn then).
      draw()
    }
  }
  draw()
  return {
    refresh: () => {
      if (!busy) draw()
    },
    dispose: () => {},
  }
}

/**
 * The pause switch, for the team page and DSH Web's Team settings alike: pause with a reason, or
 * resume, with what is held meanwhile (`GET/PUT /bot-team/api/pause`). Pausing holds Bot-started
 * work only (`botPause`); it needs a paired browser, and an unpaired one is told so and where to
 * pair. Every check is the API's.
 */
import { errorText } from '../core/errors.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import type { PauseRecordView } from './settings-view.ts'
import { ApiError, callApi } from './team-client.ts'

export interface PauseDeps {
  t: Translate
  pair: () => void
  /** Bot messages waiting now (from the pushed team view), when the host has it. */
  held?: () => number
}

export function mountPause(root: HTMLElement, deps: PauseDeps): Panel {
  const { t } = deps
  let live = true
  let busy = false
  let typed = ''
  const body = el('div', {})
  const outcome = el('div', {})
  fill(root, el('div', { className: 'bt-panel', testid: 'bt-pause-panel' }, body, outcome))

  const draw = (paused: PauseRecordView | null) => {
    if (paused) {
      const held = deps.held ? el('p', { className: 'bt-hint bt-left', text: t('settings.held', { count: deps.held() }) }) : null
      fill(
        body,
        el(
          'div',
          { testid: 'bt-settings-paused', attrs: { 'data-state': 'paused' } },
          el('p', { text: `${t('settings.pausedSince', { at: new Date(paused.at).toLocaleString() })}${paused.reason ? ` — ${paused.reason}` : ''}` }),
          held,
          el(
            'div',
            { className: 'bt-actions bt-start' },
            button(t('settings.resume'), () => void set(false), { className: 'bt-btn primary', testid: 'bt-resume' }),
          ),
        ),
      )
      return
    }
    // What the person typed survives a refresh (the team changing while the dialog is open).
    const reason = el('input', { id: 'bt-pause-reason', attrs: { maxlength: '500' }, on: { input: () => (typed = reason.value) } })
    reason.value = typed
    fill(
      body,
      el(
        'div',
        { testid: 'bt-settings-running', attrs: { 'data-state': 'running' } },
        el('p', { className: 'bt-hint bt-left', text: t('settings.running') }),
        el('div', { className: 'bt-field' }, el('label', { text: t('settings.reason'), attrs: { for: 'bt-pause-reason' } }), reason),
        el(
          'div',
          { className: 'bt-actions bt-start' },
          button(t('settings.pauseNow'), () => void set(true, reason.value.trim()), { className: 'bt-btn danger', testid: 'bt-pause' }),
        ),
      ),
    )
  }
  const load = async () => {
    try {
      const answer = (await callApi('GET', '/pause')) as { paused?: PauseRecordView | null }
      if (live) draw(answer.paused ?? null)
    } catch (error) {
      if (live) fill(body, el('p', { className: 'bt-err', text: errorText(error), attrs: { role: 'alert' } }))
    }
  }
  const set = async (paused: boolean, reason = '') => {
    if (busy) return
    busy = true
    try {
      const answer = (await callApi('PUT', '/pause', paused ? { paused: true, ...(reason ? { reason } : {}) } : { paused: false })) as {
        paused?: PauseRecordView | null
      }
      fill(outcome)
      typed = ''
      if (live) draw(answer.paused ?? null)
    } catch (error) {
      const unpaired = error instanceof ApiError && error.status === 403
      fill(
        outcome,
        unpaired
          ? el(
              'p',
              { className: 'bt-hint bt-left', testid: 'bt-pause-unpaired', attrs: { role: 'alert' } },
              `${t('pause.unpaired')} `,
              button(t('pairing.go'), deps.pair),
            )
          : el('p', { className: 'bt-err', testid: 'bt-pause-error', text: errorText(error), attrs: { role: 'alert' } }),
      )
    } finally {
      busy = false
    }
  }
  void load()
  return {
    refresh: () => {
      if (!busy) void load()
    },
    dispose: () => {
      live = false
    },
  }
}

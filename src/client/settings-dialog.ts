/**
 * The Team settings dialog inside DSH Web (`shell.overlay`, opened from the team sidebar), the few
 * settings that matter first: this window's pairing (`window-pairing.ts`), the pause switch
 * (`GET/PUT /bot-team/api/pause`: pause with a reason, or resume, with what is held meanwhile),
 * then the work budget, the Bot turns at once, the team's size and the team's daily token cap
 * (`/usage/today`, `PUT /usage/settings`); every other limit folded under "Advanced". Each limit
 * (`GET/PUT /bot-team/api/limits`) is a number input with the plugin config's value shown as the
 * default and a "reset to default" (an override set to `null`).
 *
 * Bad input gets the service's own message next to its field (`field-errors.ts`); a refusal for
 * want of pairing (raising a limit, pausing) shows the pairing prompt the secret cards use.
 *
 * Deliberately narrow: presentation; the keys, bounds and which change raises a limit are the
 * API's (the form draws whatever limits `GET /limits` lists, in its order). Re-reads when the
 * team stream pushes a new revision, so a change made elsewhere shows while the dialog is open.
 */
import { useEffect, useState, type ReactNode } from 'react'
import { fieldErrors, type FieldErrors } from './field-errors.ts'
import type { StringKey, Translate } from './i18n.ts'
import { h, useEscape } from './shared.ts'
import { ApiError, callApi, type TeamState } from './team-client.ts'
import { COMMON_LIMITS, capPatch, limitsPatch, readLimits, type LimitsAnswer, type PauseRecordView } from './settings-view.ts'
import { WindowPairing } from './window-pairing.ts'
import { errorText } from '../core/errors.ts'

export interface SettingsDeps {
  useT: () => Translate
  useTeam: () => TeamState
  /** Is the dialog open (a hook: the dialog value)? */
  useOpen: () => boolean
  close: () => void
}

const asText = (limits: Record<string, number>) => Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, String(v)]))

export function makeSettingsDialog(deps: SettingsDeps) {
  function SettingsDialog(): ReactNode {
    const t = deps.useT()
    const team = deps.useTeam()
    const open = deps.useOpen()
    const [data, setData] = useState<LimitsAnswer | undefined>(undefined)
    const [form, setForm] = useState<Record<string, string>>({})
    const [paused, setPaused] = useState<PauseRecordView | null | undefined>(undefined)
    const [reason, setReason] = useState('')
    const [errors, setErrors] = useState<FieldErrors>({ fields: {} })
    const [unpaired, setUnpaired] = useState(false)
    const [saved, setSaved] = useState(false)
    /** Which section the last action came from: its outcome shows there, next to the buttons used. */
    const [acted, setActed] = useState<'pause' | 'limits'>('limits')
    const [busy, setBusy] = useState(false)
    const [loadError, setLoadError] = useState<string | undefined>(undefined)
    /** The usage settings' caps as the ledger has them (undefined: the ledger is off, no cap field). */
    const [caps, setCaps] = useState<Record<string, unknown> | undefined>(undefined)
    const [cap, setCap] = useState('')
    const load = async (resetForm: boolean) => {
      const [limits, pause, today] = await Promise.all([
        callApi('GET', '/limits'),
        callApi('GET', '/pause'),
        callApi('GET', '/usage/today').catch(() => undefined),
      ])
      const read = readLimits(limits)
      if (!read) throw new Error('unexpected answer from /bot-team/api/limits')
      setData(read)
      if (resetForm) setForm(asText(read.limits))
      setPaused(pause?.paused ?? null)
      const teamCaps = today?.settings ? ((today.settings.caps ?? {}) as Record<string, unknown>) : undefined
      setCaps(teamCaps)
      const tokens = (teamCaps?.team as { tokens?: unknown } | undefined)?.tokens
      if (resetForm) setCap(typeof tokens === 'number' ? String(tokens) : '')
      setLoadError(undefined)
    }
    useEffect(() => {
      if (!open) return
      setErrors({ fields: {} })
      setUnpaired(false)
      setSaved(false)
      load(true).catch((e: unknown) => setLoadError(errorText(e)))
    }, [open])
    useEffect(() => {
      // Another change (elsewhere) while open: refresh what is shown; keep what the person typed.
      if (open && data) load(false).catch(() => {})
    }, [team.view?.revision])
    useEscape(open, deps.close)
    if (!open) return null

    const keys = data ? Object.keys(data.config) : []
    const run = async (work: () => Promise<unknown>, resetForm: boolean, section: 'pause' | 'limits') => {
      setActed(section)
      setBusy(true)
      setSaved(false)
      try {
        await work()
        setErrors({ fields: {} })
        setUnpaired(false)
        await load(resetForm)
        setSaved(true)
      } catch (error) {
        const message = errorText(error)
        setUnpaired(error instanceof ApiError && error.status === 403)
        setErrors(fieldErrors(message, keys))
      } finally {
        setBusy(false)
      }
    }
    const save = () =>
      run(
        async () => {
          const patch = limitsPatch(form, data?.limits ?? {})
          if (Object.keys(patch).length || !caps) await callApi('PUT', '/limits', patch)
          const changed = caps ? capPatch(caps, cap) : undefined
          if (changed) await callApi('PUT', '/usage/settings', { caps: changed })
        },
        true,
        'limits',
      )
    const reset = (key: string) => run(() => callApi('PUT', '/limits', { [key]: null }), true, 'limits')
    const pause = (on: boolean) =>
      run(() => callApi('PUT', '/pause', on ? { paused: true, ...(reason.trim() ? { reason: reason.trim() } : {}) } : { paused: false }), false, 'pause')
    /** The outcome of the last action, shown in the section it came from. */
    const outcome = (section: 'pause' | 'limits') =>
      section !== acted
        ? null
        : [
            unpaired
              ? h(
                  'p',
                  { key: 'unpaired', className: 'bt-quiet', role: 'alert', 'data-testid': 'bt-settings-unpaired', style: { textAlign: 'left' } },
                  t('settings.unpaired'),
                  ' ',
                  h('a', { href: '/bot-team', target: '_blank', rel: 'noopener' }, t('openStatusPage')),
                )
              : null,
            errors.general && !unpaired
              ? h('div', { key: 'error', className: 'bt-err', role: 'alert', 'data-testid': 'bt-settings-error' }, errors.general)
              : null,
            saved ? h('p', { key: 'saved', className: 'bt-quiet', role: 'status', style: { textAlign: 'left' } }, t('settings.saved')) : null,
          ]
    const waiting = (team.view?.bots ?? []).reduce((n, b) => n + (b.queued ?? 0), 0)
    const label = (key: string) => {
      const text = t(`limit.${key}` as StringKey)
      return text === undefined || text.startsWith('limit.') ? key : text
    }

    const limitField = (key: string) => {
      const overridden = data?.overrides[key] !== undefined
      const err = errors.fields[key]
      return h(
        'div',
        { className: 'bt-field', key, 'data-limit': key },
        h('label', { htmlFor: `bt-l-${key}` }, label(key)),
        h(
          'div',
          { style: { display: 'flex', gap: '6px', alignItems: 'center' } },
          h('input', {
            id: `bt-l-${key}`,
            name: key,
            type: 'number',
            inputMode: 'numeric',
            step: 1,
            style: { flex: 1 },
            value: form[key] ?? '',
            onChange: (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value }),
            'aria-invalid': err ? 'true' : undefined,
            'aria-describedby': `bt-ld-${key}${err ? ` bt-le-${key}` : ''}`,
          }),
          overridden
            ? h(
                'button',
                { type: 'button', className: 'bt-btn', disabled: busy, 'data-testid': `bt-reset-${key}`, onClick: () => void reset(key) },
                t('settings.reset'),
              )
            : null,
        ),
        h(
          'small',
          { id: `bt-ld-${key}`, className: 'bt-hint' },
          t('settings.default', { value: String(data?.config[key] ?? '') }),
          overridden ? ` · ${t('settings.overridden')}` : '',
        ),
        err ? h('span', { className: 'bt-err', id: `bt-le-${key}`, role: 'alert', 'data-field-error': key }, err) : null,
      )
    }

    const capField = () =>
      h(
        'div',
        { className: 'bt-field', key: 'cap', 'data-limit': 'teamTokenCap' },
        h('label', { htmlFor: 'bt-cap-team' }, t('settings.capTeam')),
        h('input', {
          id: 'bt-cap-team',
          name: 'teamTokenCap',
          type: 'number',
          inputMode: 'numeric',
          min: 1,
          step: 1,
          value: cap,
          onChange: (e: { target: { value: string } }) => setCap(e.target.value),
          'aria-describedby': 'bt-cap-note',
        }),
        h('small', { id: 'bt-cap-note', className: 'bt-hint' }, t('settings.capNote')),
      )

    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) deps.close()
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-settings-title',
          'data-testid': 'bt-settings-dialog',
          style: { width: 'min(760px,96vw)' },
        },
        h('h2', { id: 'bt-settings-title' }, t('settings')),
        loadError ? h('p', { className: 'bt-err', role: 'alert' }, loadError) : null,
        h(WindowPairing, { t, open, onPaired: () => setUnpaired(false) }),
        h(
          'section',
          { 'aria-labelledby': 'bt-settings-pause' },
          h('h3', { id: 'bt-settings-pause', className: 'bt-sec' }, t('settings.pause')),
          paused
            ? h(
                'div',
                { 'data-testid': 'bt-settings-paused' },
                h(
                  'p',
                  { style: { margin: '4px 0' } },
                  t('settings.pausedSince', { at: new Date(paused.at).toLocaleString() }),
                  paused.reason ? ` — ${paused.reason}` : '',
                ),
                h('p', { className: 'bt-hint', style: { margin: '4px 0' } }, t('settings.held', { count: waiting })),
                h(
                  'div',
                  { className: 'bt-actions', style: { justifyContent: 'flex-start' } },
                  h(
                    'button',
                    { type: 'button', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-resume', onClick: () => void pause(false) },
                    t('settings.resume'),
                  ),
                ),
              )
            : paused === null
              ? h(
                  'div',
                  { 'data-testid': 'bt-settings-running' },
                  h('p', { className: 'bt-hint', style: { margin: '4px 0' } }, t('settings.running')),
                  h(
                    'div',
                    { className: 'bt-field' },
                    h('label', { htmlFor: 'bt-pause-reason' }, t('settings.reason')),
                    h('input', {
                      id: 'bt-pause-reason',
                      value: reason,
                      maxLength: 500,
                      onChange: (e: { target: { value: string } }) => setReason(e.target.value),
                    }),
                  ),
                  h(
                    'div',
                    { className: 'bt-actions', style: { justifyContent: 'flex-start' } },
                    h(
                      'button',
                      { type: 'button', className: 'bt-btn danger', disabled: busy, 'data-testid': 'bt-pause', onClick: () => void pause(true) },
                      t('settings.pauseNow'),
                    ),
                  ),
                )
              : null,
        ),
        outcome('pause'),
        h(
          'section',
          { 'aria-labelledby': 'bt-settings-limits' },
          h('h3', { id: 'bt-settings-limits', className: 'bt-sec' }, t('settings.common')),
          data
            ? h(
                'form',
                {
                  'data-testid': 'bt-limits-form',
                  onSubmit: (e: { preventDefault(): void }) => {
                    e.preventDefault()
                    void save()
                  },
                },
                h('p', { className: 'bt-hint', style: { margin: '4px 0 8px' } }, t('settings.commonNote')),
                h(
                  'div',
                  { className: 'bt-limits', 'data-testid': 'bt-limits-common' },
                  ...keys.filter((k) => COMMON_LIMITS.includes(k)).map(limitField),
                  caps ? capField() : null,
                ),
                h(
                  'details',
                  { 'data-testid': 'bt-limits-advanced', style: { margin: '8px 0' } },
                  h('summary', { className: 'bt-sec', style: { cursor: 'pointer' } }, t('settings.advanced')),
                  h('p', { className: 'bt-hint', style: { margin: '4px 0 8px' } }, t('settings.limitsNote')),
                  h('div', { className: 'bt-limits' }, ...keys.filter((k) => !COMMON_LIMITS.includes(k)).map(limitField)),
                ),
                outcome('limits'),
                h(
                  'div',
                  { className: 'bt-actions' },
                  h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.close() }, t('close')),
                  h('button', { type: 'submit', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-limits-save' }, t('save')),
                ),
              )
            : loadError
              ? null
              : h('span', { className: 'bt-note' }, t('loading')),
        ),
      ),
    )
  }

  return { SettingsDialog }
}

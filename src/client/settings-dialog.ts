/**
 * The Team settings dialog inside DSH Web (`shell.overlay`, opened from the team sidebar), the few
 * settings that matter first: this window's pairing, settings held for confirmation, the pause
 * switch and the downloads (the team page's own panels), then the common limits and the team's
 * daily token cap, every other limit under "Advanced" (`GET/PUT /bot-team/api/limits`), each with
 * the config's value as its default and a reset. Re-reads on every push; every rule is the API's.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { DomPanel } from './dom-panel.ts'
import { mountDownloads } from './downloads-panel.ts'
import { fieldErrors, type FieldErrors } from './field-errors.ts'
import { mountHeld } from './held-panel.ts'
import { translator, type Lang, type StringKey, type Translate } from './i18n.ts'
import { mountPairing } from './pairing-panel.ts'
import { mountPause } from './pause-panel.ts'
import { h, useEscape } from './shared.ts'
import { ApiError, callApi, type TeamState } from './team-client.ts'
import { COMMON_LIMITS, capPatch, limitsPatch, readLimits, type LimitsAnswer } from './settings-view.ts'
import { errorText } from '../core/errors.ts'

export interface SettingsDeps {
  useT: () => Translate
  useLang: () => Lang
  useTeam: () => TeamState
  /** Is the dialog open (a hook: the dialog value)? */
  useOpen: () => boolean
  close: () => void
  /** Open this browser's pairing (a raise needs it). */
  pair: () => void
  /** This window was paired: re-read what depends on it. */
  changed: () => void
}

const waiting = (team: TeamState) => (team.view?.bots ?? []).reduce((n, b) => n + (b.queued ?? 0), 0)

const asText = (limits: Record<string, number>) => Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, String(v)]))

export function makeSettingsDialog(deps: SettingsDeps) {
  /** Mounted only while open, so an opening never draws the previous opening's form. */
  function SettingsDialog(): ReactNode {
    return deps.useOpen() ? h(SettingsBody, null) : null
  }

  function SettingsBody(): ReactNode {
    const t = deps.useT()
    const lang = deps.useLang()
    const team = deps.useTeam()
    const [data, setData] = useState<LimitsAnswer | undefined>(undefined)
    const [form, setForm] = useState<Record<string, string>>({})
    const [errors, setErrors] = useState<FieldErrors>({ fields: {} })
    const [unpaired, setUnpaired] = useState(false)
    const [saved, setSaved] = useState(false)
    const [busy, setBusy] = useState(false)
    const [loadError, setLoadError] = useState<string | undefined>(undefined)
    /** The usage settings' caps as the ledger has them (undefined: the ledger is off, no cap field). */
    const [caps, setCaps] = useState<Record<string, unknown> | undefined>(undefined)
    const [cap, setCap] = useState('')
    // This window's pairing, held settings, the pause switch and the downloads are the team page's
    // panels; `held` reads the latest push.
    const latest = useRef(team)
    latest.current = team
    const panels = useMemo(() => {
      const tl = translator(lang)
      return {
        pairing: (root: HTMLElement) =>
          mountPairing(root, {
            t: tl,
            compact: true,
            changed: () => {
              setUnpaired(false)
              deps.changed()
            },
          }),
        held: (root: HTMLElement) => mountHeld(root, { t: tl }),
        pause: (root: HTMLElement) => mountPause(root, { t: tl, pair: deps.pair, held: () => waiting(latest.current) }),
        downloads: (root: HTMLElement) => mountDownloads(root, { t: tl }),
      }
    }, [lang])
    const load = async (resetForm: boolean) => {
      const [limits, today] = await Promise.all([callApi('GET', '/limits'), callApi('GET', '/usage/today').catch(() => undefined)])
      const read = readLimits(limits)
      if (!read) throw new Error('unexpected answer from /bot-team/api/limits')
      setData(read)
      if (resetForm) setForm(asText(read.limits))
      const teamCaps = today?.settings ? ((today.settings.caps ?? {}) as Record<string, unknown>) : undefined
      setCaps(teamCaps)
      const tokens = (teamCaps?.team as { tokens?: unknown } | undefined)?.tokens
      if (resetForm) setCap(typeof tokens === 'number' ? String(tokens) : '')
      setLoadError(undefined)
    }
    useEffect(() => {
      load(true).catch((e: unknown) => setLoadError(errorText(e)))
    }, [])
    useEffect(() => {
      // Another change (elsewhere) while open: refresh what is shown; keep what the person typed.
      if (data) load(false).catch(() => {})
    }, [team.view?.revision])
    useEscape(true, deps.close)

    const keys = data ? Object.keys(data.config) : []
    const run = async (work: () => Promise<unknown>, resetForm: boolean) => {
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
      run(async () => {
        const patch = limitsPatch(form, data?.limits ?? {})
        if (Object.keys(patch).length || !caps) await callApi('PUT', '/limits', patch)
        const changed = caps ? capPatch(caps, cap) : undefined
        if (changed) await callApi('PUT', '/usage/settings', { caps: changed })
      }, true)
    const reset = (key: string) => run(() => callApi('PUT', '/limits', { [key]: null }), true)
    /** The outcome of the last change of a limit, shown below the form. */
    const outcome = [
      unpaired
        ? h(
            'p',
            { key: 'unpaired', className: 'bt-quiet', role: 'alert', 'data-testid': 'bt-settings-unpaired', style: { textAlign: 'left' } },
            t('settings.unpaired'),
            ' ',
            h('button', { type: 'button', className: 'bt-btn', onClick: deps.pair }, t('pairing.go')),
          )
        : null,
      errors.general && !unpaired ? h('div', { key: 'error', className: 'bt-err', role: 'alert', 'data-testid': 'bt-settings-error' }, errors.general) : null,
      saved ? h('p', { key: 'saved', className: 'bt-quiet', role: 'status', style: { textAlign: 'left' } }, t('settings.saved')) : null,
    ]
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
        h(
          'section',
          { 'aria-labelledby': 'bt-settings-window' },
          h('h3', { id: 'bt-settings-window', className: 'bt-sec' }, t('pairing.window')),
          h(DomPanel, { mount: panels.pairing }),
        ),
        h(DomPanel, { mount: panels.held, refreshKey: team.view?.revision }),
        h(
          'section',
          { 'aria-labelledby': 'bt-settings-pause' },
          h('h3', { id: 'bt-settings-pause', className: 'bt-sec' }, t('settings.pause')),
          h(DomPanel, { mount: panels.pause, refreshKey: team.view?.revision }),
        ),
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
                outcome,
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
        h(
          'section',
          { 'aria-labelledby': 'bt-settings-downloads' },
          h('h3', { id: 'bt-settings-downloads', className: 'bt-sec' }, t('downloads.title')),
          h(DomPanel, { mount: panels.downloads }),
        ),
      ),
    )
  }

  return { SettingsDialog }
}

/**
 * A Bot's settings that act at once, inside the Bot dialog: the working folder (with "start a new
 * part now") and the Main Bot switch, each request on its own with the service's refusal shown next
 * to it. Deliberately presentation only; every rule is the API's.
 */
import { useState, type ReactNode } from 'react'
import { fieldErrors } from './field-errors.ts'
import type { Translate } from './i18n.ts'
import { h } from './shared.ts'
import { callApi, pairingToken, type BotView } from './team-client.ts'
import { errorText } from '../core/errors.ts'

export interface BotSettingsDeps {
  /** Re-read the team after a change (the push follows anyway). */
  refresh: () => Promise<void>
}

type Key = 'workFolder' | 'newPart' | 'main'

/** The part of a refusal that belongs to `key` (its `key: …` part), else the whole message. */
function messageFor(key: Key, error: unknown): string {
  const text = errorText(error)
  return fieldErrors(text, [key]).fields[key] ?? text
}

export function makeBotSettings(deps: BotSettingsDeps) {
  /** Keyed by the Bot where it is drawn: another Bot's settings never show this one's form. */
  function BotSettings({ bot, t }: { bot: BotView; t: Translate }): ReactNode {
    const [folder, setFolder] = useState(bot.workFolder ?? '')
    const [errors, setErrors] = useState<Partial<Record<Key, string>>>({})
    const [done, setDone] = useState<string | undefined>(undefined)
    const [busy, setBusy] = useState<Key | undefined>(undefined)
    const act = async (key: Key, work: () => Promise<unknown>, ok: string) => {
      setBusy(key)
      setDone(undefined)
      try {
        await work()
        setErrors({})
        setDone(ok)
        await deps.refresh()
      } catch (error) {
        setErrors({ [key]: messageFor(key, error) })
      } finally {
        setBusy(undefined)
      }
    }
    const path = `/bots/${encodeURIComponent(bot.id)}`
    const saveFolder = () => act('workFolder', () => callApi('PATCH', path, { workFolder: folder.trim() ? folder.trim() : null }), t('bots.folderSaved'))
    const newPart = () => act('newPart', () => callApi('POST', `${path}/new-part`, {}), t('bots.partStarted'))
    const mainNote = !bot.main && !pairingToken()
    const setMain = (main: boolean) => act('main', () => callApi('PATCH', path, { main }), main ? t('bots.mainOn') : t('bots.mainOff'))
    const error = (key: Key) =>
      errors[key] ? h('span', { className: 'bt-err', id: `bt-e-${key}`, role: 'alert', 'data-field-error': key }, errors[key]) : null
    const described = (key: Key, note?: string) => [note, errors[key] ? `bt-e-${key}` : undefined].filter(Boolean).join(' ') || undefined
    return h(
      'section',
      { className: 'bt-settings', 'aria-labelledby': 'bt-settings-title', 'data-testid': 'bt-bot-settings' },
      h('h3', { id: 'bt-settings-title' }, t('bots.settings')),
      h(
        'div',
        { className: 'bt-field' },
        h('label', { htmlFor: 'bt-f-workFolder' }, t('bots.workFolder')),
        h(
          'div',
          { className: 'bt-inline' },
          h('input', {
            id: 'bt-f-workFolder',
            name: 'workFolder',
            value: folder,
            placeholder: t('bots.workFolderPlaceholder'),
            spellCheck: false,
            autoComplete: 'off',
            maxLength: 1000,
            onChange: (e: { target: { value: string } }) => setFolder(e.target.value),
            onKeyDown: (e: { key: string; preventDefault(): void }) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                void saveFolder()
              }
            },
            'aria-invalid': errors.workFolder ? 'true' : undefined,
            'aria-describedby': described('workFolder', 'bt-n-workFolder'),
          }),
          h(
            'button',
            { type: 'button', className: 'bt-btn', disabled: busy !== undefined, 'data-testid': 'bt-set-folder', onClick: () => void saveFolder() },
            t('bots.setFolder'),
          ),
        ),
        h('span', { className: 'bt-quiet bt-left', id: 'bt-n-workFolder' }, t('bots.workFolderNote'), pairingToken() ? null : ` ${t('bots.needsPairing')}`),
        error('workFolder'),
      ),
      h(
        'div',
        { className: 'bt-field' },
        h(
          'div',
          { className: 'bt-inline' },
          h(
            'button',
            {
              type: 'button',
              className: 'bt-btn',
              disabled: busy !== undefined,
              'data-testid': 'bt-new-part',
              'aria-describedby': described('newPart', 'bt-n-newPart'),
              onClick: () => void newPart(),
            },
            t('bots.newPart'),
          ),
          h('span', { className: 'bt-quiet bt-left', id: 'bt-n-newPart' }, t('bots.newPartNote')),
        ),
        error('newPart'),
      ),
      h(
        'div',
        { className: 'bt-field check' },
        h('input', {
          id: 'bt-f-main',
          type: 'checkbox',
          checked: bot.main,
          disabled: busy !== undefined,
          'data-testid': 'bt-main-toggle',
          'aria-describedby': described('main', mainNote ? 'bt-n-main' : undefined),
          'aria-invalid': errors.main ? 'true' : undefined,
          onChange: (e: { target: { checked: boolean } }) => void setMain(e.target.checked),
        }),
        h('label', { htmlFor: 'bt-f-main' }, t('bots.main')),
      ),
      mainNote ? h('span', { className: 'bt-quiet bt-left', id: 'bt-n-main' }, t('bots.mainNeedsPairing')) : null,
      error('main'),
      done ? h('span', { className: 'bt-quiet bt-left', role: 'status', 'data-testid': 'bt-settings-done' }, done) : null,
    )
  }

  return { BotSettings }
}

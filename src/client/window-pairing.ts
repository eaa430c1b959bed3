/**
 * "This window" in Team settings: whether this browser window is paired, and — while no browser
 * is paired at all — the button that pairs it in the one-time pairing window (no terminal needed:
 * DSH Desktop shows none). `POST /pairing/window`, then `POST /pairing {window}`; the token goes to
 * the storage the team page uses too. Deliberately narrow: every check (idle chats, one window,
 * nobody paired yet) is the server's; a refusal shows its message as it is.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { Translate } from './i18n.ts'
import { h } from './shared.ts'
import { callApi, keepPairingToken } from './team-client.ts'
import { errorText } from '../core/errors.ts'

interface PairingView {
  paired: boolean
  window?: boolean
}

/** Pair this window in a pairing window; resolves once the token is kept (pure I/O, no React). */
export async function pairThisWindow(): Promise<void> {
  const opened = (await callApi('POST', '/pairing/window', {})) as { window?: unknown }
  if (typeof opened?.window !== 'string') throw new Error('unexpected answer from /bot-team/api/pairing/window')
  const paired = (await callApi('POST', '/pairing', { window: opened.window })) as { token?: unknown }
  if (typeof paired?.token !== 'string') throw new Error('unexpected answer from /bot-team/api/pairing')
  keepPairingToken(paired.token)
}

export function WindowPairing({ t, open, onPaired }: { t: Translate; open: boolean; onPaired: () => void }): ReactNode {
  const [view, setView] = useState<PairingView | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const load = () =>
    callApi('GET', '/pairing', undefined, { withToken: true }).then(
      (r: PairingView) => setView({ paired: r?.paired === true, ...(r?.window === true ? { window: true } : {}) }),
      (e: unknown) => setError(errorText(e)),
    )
  useEffect(() => {
    if (open) void load()
  }, [open])
  if (!view) return null
  const pair = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await pairThisWindow()
      await load()
      onPaired()
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'section',
    { 'aria-labelledby': 'bt-settings-window', 'data-testid': 'bt-window-pairing', 'data-paired': view.paired ? 'true' : 'false' },
    h('h3', { id: 'bt-settings-window', className: 'bt-sec' }, t('pairing.window')),
    h('p', { className: 'bt-hint', style: { margin: '4px 0' } }, t(view.paired ? 'pairing.paired' : view.window ? 'pairing.canPair' : 'pairing.byCode')),
    !view.paired && view.window
      ? h(
          'div',
          { className: 'bt-actions', style: { justifyContent: 'flex-start' } },
          h(
            'button',
            { type: 'button', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-pair-window', onClick: () => void pair() },
            t('pairing.pairNow'),
          ),
        )
      : null,
    error ? h('p', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-pair-error' }, error) : null,
  )
}

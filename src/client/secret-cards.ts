/**
 * Secret cards inside DSH Web (`shell.overlay`, non-modal, bottom right): when a Bot asks for a
 * secret (`request_secret`), a card names the Bot, the variable and the purpose and takes the value
 * outside any chat — a text input masked by CSS (not `type=password`, not in a `<form>`, with
 * `autocomplete=off` and the ignore attributes of the common password managers, so none offers to
 * fill or save it), "this Bot" / "all Bots", Save and Cancel. It says that a scope decides whose
 * shell gets the value, not who can read files, and warns when the page is neither on loopback nor
 * HTTPS.
 *
 * The input is uncontrolled (React never mirrors it into a `value` attribute); Save reads it once,
 * clears it before the request goes out, and the value lives nowhere else in the page: not in
 * state, not in a log, not in the error line (the API's messages never quote it).
 *
 * Reads `GET /bot-team/api/secrets` when mounted, when the team stream says a Bot asked (its
 * `secrets` event) and when the team changes. Saving or cancelling needs this browser paired
 * (`callApi` sends the team page's token); an unpaired browser is told where to pair.
 *
 * Deliberately narrow: presentation; every check (names, scopes, pairing) is the API's.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { Translate } from './i18n.ts'
import { h } from './shared.ts'
import { readRequests, safeOrigin, type SecretRequestView } from './secret-requests.ts'
import { callApi, pairingToken, type TeamState } from './team-client.ts'
import { errorText } from '../core/errors.ts'

const IGNORE = {
  autoComplete: 'off',
  autoCapitalize: 'off',
  autoCorrect: 'off',
  spellCheck: false,
  'data-lpignore': 'true',
  'data-1p-ignore': '',
  'data-bwignore': '',
  'data-form-type': 'other',
}

export function makeSecretCards(deps: { useT: () => Translate; useTeam: () => TeamState }) {
  function SecretCard({ request, t, done }: { request: SecretRequestView; t: Translate; done: () => void }): ReactNode {
    const input = useRef<{ value: string } | null>(null)
    const [scope, setScope] = useState<'bot' | 'all'>('bot')
    const [error, setError] = useState<string | undefined>(undefined)
    const [busy, setBusy] = useState(false)
    const id = `bt-secret-${request.id.replace(/[^\w-]/g, '')}`
    const send = async (method: 'POST' | 'DELETE') => {
      const box = input.current
      const value = box?.value ?? ''
      if (box) box.value = ''
      setBusy(true)
      try {
        await callApi(method, `/secrets/requests/${encodeURIComponent(request.id)}`, method === 'POST' ? { value, scope } : undefined)
        setError(undefined)
        done()
      } catch (e) {
        setError(errorText(e))
      } finally {
        setBusy(false)
      }
    }
    return h(
      'section',
      { className: 'bt-secret', 'aria-labelledby': `${id}-title`, 'data-testid': 'bt-secret-card', 'data-request-id': request.id },
      h('h3', { id: `${id}-title` }, t('secretAsks', { name: request.bot.name, variable: request.variable })),
      h('p', null, request.purpose),
      request.exists ? h('p', { className: 'bt-quiet' }, t('secretExists')) : null,
      h('label', { htmlFor: `${id}-value` }, t('secretValue')),
      h('input', {
        id: `${id}-value`,
        ref: input,
        type: 'text',
        className: 'bt-secret-value',
        'data-testid': 'bt-secret-value',
        ...IGNORE,
        onKeyDown: (e: { key: string }) => {
          if (e.key === 'Enter') void send('POST')
        },
      }),
      h(
        'fieldset',
        { className: 'bt-secret-scope' },
        h('legend', null, t('secretScope')),
        ...(['bot', 'all'] as const).map((s) =>
          h(
            'label',
            { key: s },
            h('input', { type: 'radio', name: `${id}-scope`, value: s, checked: scope === s, onChange: () => setScope(s) }),
            ' ',
            t(s === 'bot' ? 'secretThisBot' : 'secretAllBots'),
          ),
        ),
      ),
      h('p', { className: 'bt-quiet' }, t('secretScopeNote')),
      pairingToken()
        ? null
        : h(
            'p',
            { className: 'bt-quiet', 'data-testid': 'bt-secret-unpaired' },
            t('secretUnpaired'),
            ' ',
            h('a', { href: '/bot-team', target: '_blank', rel: 'noopener' }, t('openStatusPage')),
          ),
      error ? h('p', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-secret-error' }, error) : null,
      h(
        'div',
        { className: 'bt-actions' },
        h(
          'button',
          { type: 'button', className: 'bt-btn', disabled: busy, 'data-testid': 'bt-secret-cancel', onClick: () => void send('DELETE') },
          t('cancel'),
        ),
        h(
          'button',
          { type: 'button', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-secret-save', onClick: () => void send('POST') },
          t('save'),
        ),
      ),
    )
  }

  /** Every open request as a card; nothing while there is none. */
  function SecretCards(): ReactNode {
    const t = deps.useT()
    const team = deps.useTeam()
    const [requests, setRequests] = useState<SecretRequestView[]>([])
    const [tick, setTick] = useState(0)
    useEffect(() => {
      let live = true
      callApi('GET', '/secrets').then(
        (r) => {
          if (live) setRequests(readRequests(r))
        },
        () => {
          /* the API down: no cards */
        },
      )
      return () => {
        live = false
      }
    }, [team.secrets, team.view?.revision, tick])
    if (requests.length === 0) return null
    const loc = (globalThis as { location?: { protocol: string; hostname: string } }).location
    return h(
      'aside',
      { className: 'bt-secrets', 'aria-label': t('secretCards'), 'data-testid': 'bt-secret-cards' },
      safeOrigin(loc) ? null : h('p', { className: 'bt-problem', role: 'alert', 'data-testid': 'bt-secret-insecure' }, t('secretInsecure')),
      ...requests.map((r) => h(SecretCard, { key: r.id, request: r, t, done: () => setTick((n) => n + 1) })),
    )
  }

  return { SecretCards }
}

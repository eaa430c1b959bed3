/**
 * Secrets, for the team page and DSH Web alike: a card per open request (`mountSecretCards`) that
 * takes the value outside any chat, and the saved secrets with Delete (`mountSavedSecrets`).
 * The value input is a CSS-masked text field outside any form, autofill off; Save reads it once and
 * empties it before the request goes out, so the value is nowhere else in the page.
 * Every check (names, scopes, pairing) is the API's (`web/secrets-routes.ts`).
 */
import { errorText } from '../core/errors.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import { readRequests, safeOrigin, type SecretRequestView } from './secret-requests.ts'
import { callApi, pairingToken } from './team-client.ts'

export interface SecretsDeps {
  t: Translate
  /** Open this browser's pairing (DSH Web's dialog, the page's section). */
  pair: () => void
  /** A card was answered: what lists the saved secrets re-reads. */
  changed?: () => void
}

interface SavedView {
  name: string
  variable: string
  scope: 'all' | { bots: { id: string; name: string }[] }
  lastUsedAt?: string
}

/** The saved secrets of a `/secrets` answer, checked for shape (pure); bounded to 200. */
export function readSaved(value: unknown): SavedView[] {
  const list = (value as { secrets?: unknown } | undefined)?.secrets
  if (!Array.isArray(list)) return []
  return list
    .filter((x): x is SavedView => !!x && typeof x.name === 'string' && typeof x.variable === 'string' && (x.scope === 'all' || Array.isArray(x.scope?.bots)))
    .slice(0, 200)
}

/** What keeps password managers from offering to fill or save the value. */
const IGNORE: Record<string, string> = {
  type: 'text',
  autocomplete: 'off',
  autocapitalize: 'off',
  autocorrect: 'off',
  spellcheck: 'false',
  'data-lpignore': 'true',
  'data-1p-ignore': '',
  'data-bwignore': '',
  'data-form-type': 'other',
}

function pairNote(deps: SecretsDeps, words: 'secretUnpaired' | 'pairing.needed', testid: string): HTMLElement {
  return el('p', { className: 'bt-hint bt-left', testid }, `${deps.t(words)} `, button(deps.t('pairing.go'), deps.pair))
}

function card(r: SecretRequestView, deps: SecretsDeps, settled: () => void): HTMLElement {
  const { t } = deps
  const id = `bt-secret-${r.id.replace(/[^\w-]/g, '')}`
  const input = el('input', { id: `${id}-value`, className: 'bt-secret-value', testid: 'bt-secret-value', attrs: IGNORE })
  const error = el('p', { className: 'bt-err', testid: 'bt-secret-error', attrs: { role: 'alert' } })
  error.hidden = true
  const scope = (value: 'bot' | 'all', words: string, checked: boolean) => {
    const radio = el('input', { attrs: { type: 'radio', name: `${id}-scope`, value } })
    radio.checked = checked
    return el('label', {}, radio, ` ${words}`)
  }
  const scopes = el(
    'fieldset',
    { className: 'bt-secret-scope' },
    el('legend', { text: t('secretScope') }),
    scope('bot', t('secretThisBot'), true),
    scope('all', t('secretAllBots'), false),
  )
  const buttons: HTMLButtonElement[] = []
  const send = async (method: 'POST' | 'DELETE') => {
    const value = input.value
    input.value = ''
    const chosen = scopes.querySelector<HTMLInputElement>('input:checked')?.value === 'all' ? 'all' : 'bot'
    for (const b of buttons) b.disabled = true
    try {
      await callApi(method, `/secrets/requests/${encodeURIComponent(r.id)}`, method === 'POST' ? { value, scope: chosen } : undefined)
      error.hidden = true
      settled()
    } catch (e) {
      error.textContent = errorText(e)
      error.hidden = false
    } finally {
      for (const b of buttons) b.disabled = false
    }
  }
  input.addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter') void send('POST')
  })
  buttons.push(
    button(t('cancel'), () => void send('DELETE'), { testid: 'bt-secret-cancel' }),
    button(t('save'), () => void send('POST'), { className: 'bt-btn primary', testid: 'bt-secret-save' }),
  )
  return el(
    'section',
    { className: 'bt-secret', testid: 'bt-secret-card', attrs: { 'aria-labelledby': `${id}-title`, 'data-request-id': r.id } },
    el('h3', { id: `${id}-title`, text: t('secretAsks', { name: r.bot.name, variable: r.variable }) }),
    el('p', { text: r.purpose }),
    r.exists ? el('p', { className: 'bt-hint bt-left', text: t('secretExists') }) : null,
    el('label', { text: t('secretValue'), attrs: { for: `${id}-value` } }),
    input,
    scopes,
    el('p', { className: 'bt-hint bt-left', text: t('secretScopeNote') }),
    pairingToken() ? null : pairNote(deps, 'secretUnpaired', 'bt-secret-unpaired'),
    error,
    el('div', { className: 'bt-actions' }, ...buttons),
  )
}

/**
 * A card per open request, kept while the request is open (what is typed survives a refresh).
 * `floating`: DSH Web's non-modal stack at the bottom right; the page draws them in place.
 */
export function mountSecretCards(root: HTMLElement, deps: SecretsDeps & { floating: boolean }): Panel {
  let live = true
  const shown = new Map<string, HTMLElement>()
  const insecure = el('p', { className: 'bt-problem', testid: 'bt-secret-insecure', text: deps.t('secretInsecure'), attrs: { role: 'alert' } })
  const cards = el('div', { className: 'bt-cards' })
  const box = el('aside', {
    className: `bt-panel ${deps.floating ? 'bt-secrets' : 'bt-secrets-inline'}`,
    testid: 'bt-secret-cards',
    attrs: { 'aria-label': deps.t('secretCards') },
  })
  if (!safeOrigin(globalThis.location)) box.append(insecure)
  box.append(cards)
  fill(root, box)
  const load = async () => {
    let requests: SecretRequestView[]
    try {
      requests = readRequests(await callApi('GET', '/secrets'))
    } catch {
      return // the API down: no cards
    }
    if (!live) return
    const open = new Set(requests.map((r) => r.id))
    for (const [id, node] of shown)
      if (!open.has(id)) {
        node.remove()
        shown.delete(id)
      }
    for (const r of requests)
      if (!shown.has(r.id)) {
        const node = card(r, deps, () => {
          void load()
          deps.changed?.()
        })
        shown.set(r.id, node)
        cards.append(node)
      }
    box.hidden = shown.size === 0
  }
  box.hidden = true
  void load()
  return {
    refresh: () => void load(),
    dispose: () => {
      live = false
    },
  }
}

/** The saved secrets (name, variable, who has it, last used — never a value), each with Delete. */
export function mountSavedSecrets(root: HTMLElement, deps: SecretsDeps): Panel {
  const { t } = deps
  let live = true
  const list = el('ul', { id: 'secret-list', className: 'bt-list', testid: 'bt-secret-list', attrs: { 'aria-labelledby': 'bt-saved-secrets' } })
  const empty = el('p', { className: 'bt-hint bt-left', text: t('secrets.none') })
  const error = el('p', { className: 'bt-err', attrs: { role: 'alert' } })
  error.hidden = true
  const unpaired = pairNote(deps, 'pairing.needed', 'bt-secrets-unpaired')
  fill(
    root,
    el('div', { className: 'bt-panel' }, el('h3', { id: 'bt-saved-secrets', className: 'bt-sec', text: t('secrets.saved') }), unpaired, list, empty, error),
  )
  const load = async () => {
    unpaired.hidden = !!pairingToken()
    try {
      const saved = readSaved(await callApi('GET', '/secrets'))
      if (!live) return
      empty.hidden = saved.length > 0
      fill(
        list,
        ...saved.map((x) => {
          const who = x.scope === 'all' ? t('secrets.allBots') : x.scope.bots.map((b) => b.name).join(', ')
          const used = x.lastUsedAt ? t('secrets.lastUsed', { at: new Date(x.lastUsedAt).toLocaleString() }) : t('secrets.neverUsed')
          const del = button(t('secrets.delete'), () => void remove(x.name))
          del.setAttribute('aria-label', t('secrets.deleteLabel', { name: x.name }))
          return el('li', { attrs: { 'data-name': x.name } }, `${x.name} ($${x.variable}) — ${who} — ${used} `, del)
        }),
      )
    } catch (e) {
      error.textContent = errorText(e)
      error.hidden = false
    }
  }
  const remove = async (name: string) => {
    try {
      await callApi('DELETE', `/secrets/${encodeURIComponent(name)}`)
      error.hidden = true
    } catch (e) {
      error.textContent = errorText(e)
      error.hidden = false
    }
    await load()
  }
  void load()
  return {
    refresh: () => void load(),
    dispose: () => {
      live = false
    },
  }
}

/**
 * The team page at `/bot-team`, for a browser without DSH Web's shell: the team's status (Bots,
 * the health of team state and the archive, recent activity), then the panels DSH Web shows —
 * settings held for confirmation, pairing and devices, secret cards and saved secrets, the pause
 * switch, the downloads. Built by tsdown into `dist-client/page.js`; the server sends only a small
 * HTML document and this file, under a policy that forbids inline script and style.
 */
import { errorText } from '../core/errors.ts'
import { el, fill, type Panel } from './dom.ts'
import { mountDownloads } from './downloads-panel.ts'
import { mountHeld } from './held-panel.ts'
import { langOf, translator, type Translate } from './i18n.ts'
import { mountPairing } from './pairing-panel.ts'
import { mountNetwork } from './network-panel.ts'
import { mountPause } from './pause-panel.ts'
import { mountSavedSecrets, mountSecretCards } from './secrets-panel.ts'
import { CSS } from './styles.ts'
import { callApi, TeamStore } from './team-client.ts'

/** The page's own layout; the panels' look is the client's stylesheet (`styles.ts`). */
const PAGE_CSS = `
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:48rem;padding:0 1rem;color:#1d2430}
h1{font-size:1.4rem;margin-bottom:.25rem}
h2{font-size:1.05rem;margin:1.6rem 0 .4rem}
#bots,#activity{padding-left:1.2rem}
.bt-secrets-inline{display:flex;flex-direction:column;gap:8px}
.muted{color:#667085}
`

interface Status {
  bots: { name: string; role?: string; main?: boolean }[]
  store?: { mode: string; message?: string } | null
  activity?: { at: string; text: string }[]
  archive: {
    driver: string
    lines?: number
    fileBytes?: number
    rebuilding?: boolean
    catchingUp?: boolean
    lastCatchUp?: string
    problem?: { message: string }
  }
}

function renderStatus(root: HTMLElement, s: Status, t: Translate): void {
  const summary = el('p', { id: 'summary', className: 'muted', attrs: { 'data-state': 'ready' } })
  summary.textContent = s.bots.length === 0 ? t('page.none') : s.bots.length === 1 ? t('page.countOne') : t('page.count', { count: s.bots.length })
  const bots = el('ul', { id: 'bots' }, ...s.bots.map((b) => el('li', { text: `${b.name}${b.role ? ` — ${b.role}` : ''}${b.main ? ' ★' : ''}` })))
  const a = s.archive
  const state =
    typeof a.lines === 'number'
      ? [
          `${a.lines.toLocaleString()} ${t('page.lines')}`,
          `${((a.fileBytes ?? 0) / 1048576).toFixed(1)} MB`,
          ...(a.rebuilding ? [t('page.rebuilding')] : a.catchingUp ? [t('page.catchingUp')] : []),
          ...(a.lastCatchUp ? [`${t('page.caughtUp')} ${new Date(a.lastCatchUp).toLocaleTimeString()}`] : []),
        ].join(' · ')
      : undefined
  const problems = [
    s.store && s.store.mode !== 'writer' ? el('p', { id: 'store-problem', className: 'bt-problem', text: s.store.message ?? s.store.mode }) : null,
    a.problem ? el('p', { id: 'archive-problem', className: 'bt-problem', text: a.problem.message }) : null,
  ]
  const recent = (s.activity ?? []).slice(-10).reverse()
  fill(
    root,
    summary,
    bots,
    el('p', { id: 'archive', text: `${t('page.archive')}: ${a.driver}` }),
    state ? el('p', { id: 'archive-state', className: 'muted', text: state }) : null,
    ...problems,
    recent.length ? el('h2', { id: 'activity-title', text: t('page.activity') }) : null,
    recent.length
      ? el(
          'ul',
          { id: 'activity', attrs: { 'aria-labelledby': 'activity-title' } },
          ...recent.map((x) => el('li', { text: `${new Date(x.at).toLocaleTimeString()} — ${x.text}` })),
        )
      : null,
  )
}

function section(id: string, title: string, ...children: HTMLElement[]): HTMLElement {
  return el('section', { id: `${id}-section`, attrs: { 'aria-labelledby': `${id}-title` } }, el('h2', { id: `${id}-title`, text: title }), ...children)
}

function start(): void {
  const t = translator(langOf(navigator.language))
  document.documentElement.lang = langOf(navigator.language)
  document.title = t('page.title')
  try {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(CSS + PAGE_CSS)
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
  } catch {
    // an old browser: the page stays readable unstyled
  }
  const status = el('div', { id: 'status' }, el('p', { id: 'summary', className: 'muted', text: t('loading') }))
  const heldRoot = el('div', {})
  const pairingRoot = el('div', {})
  const cardsRoot = el('div', {})
  const savedRoot = el('div', {})
  const pauseRoot = el('div', {})
  const networkRoot = el('div', {})
  const downloadsRoot = el('div', {})
  const pairingSection = section('pairing', t('pairing.title'), pairingRoot)
  fill(
    document.body,
    el(
      'main',
      {},
      el('h1', { text: t('page.title') }),
      el('p', { className: 'muted', text: t('page.inDsh') }),
      status,
      heldRoot,
      pairingSection,
      section('secrets', t('secrets.title'), cardsRoot, savedRoot),
      section('network', t('network.title'), networkRoot),
      section('operations', t('page.operations'), pauseRoot, el('h3', { className: 'bt-sec', text: t('downloads.title') }), downloadsRoot),
    ),
  )
  const pair = () => {
    pairingSection.scrollIntoView()
    document.getElementById('pairing-start')?.focus()
  }
  const store = new TeamStore()
  const held = () => (store.getSnapshot().view?.bots ?? []).reduce((n, b) => n + (b.queued ?? 0), 0)
  const panels: Panel[] = []
  const loadStatus = () =>
    callApi('GET', '/status').then(
      (s: Status) => renderStatus(status, s, t),
      (error: unknown) => {
        const summary = el('p', { id: 'summary', className: 'muted', text: t('page.failed', { error: errorText(error) }), attrs: { 'data-state': 'error' } })
        fill(status, summary)
      },
    )
  const refreshAll = () => {
    void loadStatus()
    for (const p of panels) p.refresh()
  }
  const saved = mountSavedSecrets(savedRoot, { t, pair })
  const network = mountNetwork(networkRoot, { t, pair, bots: () => store.getSnapshot().view?.bots ?? [] })
  panels.push(
    mountPairing(pairingRoot, { t, changed: refreshAll }),
    mountHeld(heldRoot, { t }),
    mountSecretCards(cardsRoot, { t, pair, floating: false, changed: () => saved.refresh() }),
    saved,
    mountPause(pauseRoot, { t, pair, held }),
    network,
    mountDownloads(downloadsRoot, { t }),
  )
  void loadStatus()
  // Pushed, not polled: a secret request or a team change re-reads what it touches.
  let seen = { secrets: 0, revision: undefined as number | undefined }
  store.subscribe(() => {
    const s = store.getSnapshot()
    const revision = s.view?.revision
    // Each Bot's level and problem come with the pushed view: redrawn with every one.
    network.refresh()
    if ((s.secrets ?? 0) !== seen.secrets) panels[1]?.refresh()
    if (revision !== undefined && seen.revision !== undefined && revision !== seen.revision) refreshAll()
    seen = { secrets: s.secrets ?? 0, revision: revision ?? seen.revision }
  })
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start)
else start()

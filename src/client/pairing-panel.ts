/**
 * "This browser": whether it is paired, pairing it with a code (the first printed on DSH's
 * terminal, later ones shown by a paired browser) or — no terminal, DSH Desktop — in the one-time
 * pairing window, a code for the next browser, and every paired device with Unpair, so a stray
 * pairing is visible. `compact`: the state and the window button only (Team settings). One panel
 * for the team page and DSH Web; every check is the API's (`web/pairing.ts`).
 */
import { errorText } from '../core/errors.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import { callApi, pairingToken, setPairingToken } from './team-client.ts'

interface DeviceView {
  id: string
  label: string
  createdAt: string
  lastUsedAt: string
}
interface PairingView {
  paired: boolean
  deviceId?: string
  devices: DeviceView[]
  nextPairing: 'terminal' | 'paired-browser'
  /** No browser is paired yet, and this DSH can open a pairing window (no terminal needed). */
  window?: boolean
  problem?: string
}

/** A `/pairing` answer checked for shape (pure); bounded to 100 devices. */
export function readPairing(value: unknown): PairingView | undefined {
  const v = value as Partial<PairingView> | undefined
  if (!v || typeof v.paired !== 'boolean' || !Array.isArray(v.devices)) return undefined
  const devices = v.devices
    .filter((d): d is DeviceView => !!d && typeof d.id === 'string' && typeof d.label === 'string' && typeof d.createdAt === 'string')
    .slice(0, 100)
  return {
    ...v,
    paired: v.paired,
    devices,
    nextPairing: v.nextPairing === 'paired-browser' ? 'paired-browser' : 'terminal',
    window: v.window === true,
  }
}

const time = (iso: string) => new Date(iso).toLocaleTimeString()
const when = (iso: string) => new Date(iso).toLocaleString()

export function mountPairing(root: HTMLElement, deps: { t: Translate; changed?: () => void; compact?: boolean }): Panel {
  const { t } = deps
  const compact = deps.compact === true
  let live = true
  // The compact form sits in a dialog beside other panels: no ids, so nothing can clash.
  const id = (name: string) => (compact ? {} : { id: name })
  const state = el('p', { ...id('pairing-state'), className: 'bt-hint bt-left', attrs: { role: 'status' } })
  const problem = el('p', { ...id('pairing-problem'), className: 'bt-err', testid: 'bt-pair-error', attrs: { role: 'alert' } })
  const windowed = button(t('pairing.pairNow'), () => void pairWindow(), {
    ...id('pairing-window'),
    className: 'bt-btn primary',
    testid: 'bt-pair-window',
  })
  const code = el('p', { id: 'pairing-code', className: 'bt-code' })
  const input = el('input', { id: 'pairing-code-input', attrs: { autocomplete: 'off', maxlength: '16', size: '12', spellcheck: 'false' } })
  const start = button(t('pairing.start'), () => ask(), { id: 'pairing-start' })
  const submit = button(t('pairing.submit'), () => void pair(), { id: 'pairing-submit', className: 'bt-btn primary' })
  const form = el(
    'div',
    { id: 'pairing-form', className: 'bt-field' },
    el('label', { text: t('pairing.code'), attrs: { for: 'pairing-code-input' } }),
    el('span', { className: 'bt-inline' }, input, submit),
  )
  const another = button(t('pairing.newCode'), () => ask(), { id: 'pairing-new-code' })
  const devicesTitle = el('h3', { id: 'devices-title', className: 'bt-sec', text: t('pairing.devices') })
  const devices = el('ul', { id: 'devices', className: 'bt-list', attrs: { 'aria-labelledby': 'devices-title' } })
  for (const node of [problem, code, form, start, another, devicesTitle, windowed]) node.hidden = true
  input.addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter') void pair()
  })
  const box = compact
    ? el('div', { className: 'bt-panel', testid: 'bt-window-pairing' }, state, windowed, problem)
    : el(
        'div',
        { id: 'pairing', className: 'bt-panel', testid: 'bt-window-pairing' },
        state,
        problem,
        start,
        windowed,
        form,
        another,
        code,
        devicesTitle,
        devices,
      )
  fill(root, box)

  /** The last action's refusal, shown until the next action succeeds. */
  let failure: string | undefined
  const fail = (error: unknown) => {
    failure = errorText(error)
    if (!live) return
    problem.textContent = failure
    problem.hidden = false
  }
  const show = (p: PairingView) => {
    // Unpaired, or the file was deleted: the token is worth nothing. A broken file keeps it.
    if (!p.paired && pairingToken() && !p.problem) setPairingToken(undefined)
    state.dataset.state = p.paired ? 'paired' : 'unpaired'
    box.dataset.paired = p.paired ? 'true' : 'false'
    windowed.hidden = p.paired || p.window !== true
    if (compact) state.textContent = t(p.paired ? 'pairing.windowPaired' : p.window ? 'pairing.canPair' : 'pairing.byCode')
    else state.textContent = p.paired ? t('pairing.paired') : t(p.nextPairing === 'terminal' ? 'pairing.unpairedTerminal' : 'pairing.unpairedOther')
    const trouble = p.problem ?? failure
    problem.hidden = !trouble
    problem.textContent = trouble ?? ''
    start.hidden = p.paired || p.nextPairing !== 'terminal'
    form.hidden = p.paired || (p.nextPairing === 'terminal' && code.hidden)
    another.hidden = !p.paired
    devicesTitle.hidden = p.devices.length === 0
    fill(
      devices,
      ...p.devices.map((d) => {
        const label = t('pairing.device', {
          label: d.label,
          mine: d.id === p.deviceId ? t('pairing.mine') : '',
          paired: when(d.createdAt),
          used: when(d.lastUsedAt),
        })
        const item = el('li', { attrs: { 'data-device-id': d.id } }, label)
        if (p.paired) {
          const off = button(t('pairing.unpair'), () => void act(() => callApi('DELETE', `/pairing/devices/${encodeURIComponent(d.id)}`)))
          off.setAttribute('aria-label', t('pairing.unpairLabel', { label: d.label }))
          item.append(' ', off)
        }
        return item
      }),
    )
  }
  const load = async () => {
    try {
      const p = readPairing(await callApi('GET', '/pairing'))
      if (!p) throw new Error('unexpected answer from /bot-team/api/pairing')
      if (live) show(p)
    } catch (error) {
      state.dataset.state = 'error'
      fail(error)
    }
  }
  const act = async (work: () => Promise<unknown>) => {
    try {
      await work()
      failure = undefined
      deps.changed?.()
    } catch (error) {
      fail(error)
    }
    await load()
  }
  /** Ask for a code: a paired browser is shown it; the first one is printed on DSH's terminal. */
  const ask = () =>
    void act(async () => {
      const grant = (await callApi('POST', '/pairing/codes', {})) as { code?: string; expiresAt: string }
      code.textContent = t(grant.code ? 'pairing.codeIs' : 'pairing.shownInTerminal', { code: grant.code ?? '', until: time(grant.expiresAt) })
      code.hidden = false
    })
  /** The one-time pairing window (no browser paired yet, every chat idle): open it, then claim it. */
  const pairWindow = () =>
    act(async () => {
      const opened = (await callApi('POST', '/pairing/window', {})) as { window?: unknown }
      if (typeof opened.window !== 'string') throw new Error('unexpected answer from /bot-team/api/pairing/window')
      const answer = (await callApi('POST', '/pairing', { window: opened.window })) as { token?: string }
      if (!answer.token) throw new Error('unexpected answer from /bot-team/api/pairing')
      setPairingToken(answer.token)
    })
  const pair = () =>
    act(async () => {
      const answer = (await callApi('POST', '/pairing', { code: input.value })) as { token?: string }
      if (!answer.token) throw new Error('unexpected answer from /bot-team/api/pairing')
      setPairingToken(answer.token)
      input.value = ''
      code.hidden = true
    })

  void load()
  return {
    refresh: () => void load(),
    dispose: () => {
      live = false
    },
  }
}

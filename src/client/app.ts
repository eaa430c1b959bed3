/**
 * The client half's React components, made once per page around one live team store: the team
 * sidebar and its switch, the Bot, Group, log, memory, usage, settings and part dialogs, the panels'
 * dialogs, the Session badge and the chat-node renderers. Every component is mounted behind an error
 * boundary and reads the team only from the store. Deliberately decides nothing: who may do what is
 * the API's (src/client/README.md).
 */
import { useEffect, useState, useSyncExternalStore, type ComponentType, type ReactNode } from 'react'
import { fieldErrors, type FieldErrors } from './field-errors.ts'
import { langOf, translator, type Lang, type Translate } from './i18n.ts'
import { initials, nodeText, teamLine } from './message-line.ts'
import { makeGroupDialog } from './group-dialog.ts'
import { makeBotSettings } from './bot-settings.ts'
import { makePartView, type PartToShow } from './part-view.ts'
import { makePanelDialogs } from './panel-dialogs.ts'
import { makeUsageScreen } from './usage-screen.ts'
import { makeSettingsDialog } from './settings-dialog.ts'
import { makeTaskBoard } from './task-board.ts'
import { WaitingWatch } from './task-notify.ts'
import { livePosts, progressText, roomItems, type RoomItem } from './room-view.ts'
import { h, isOurs, useEscape, useValue, Value } from './shared.ts'
import { shadowedEntry, type SlotsLike } from './slots.ts'
import { callApi, TeamStore, type BotView, type GroupView, type TeamView } from './team-client.ts'
import { errorText } from '../core/errors.ts'

export const SIDEBAR_KEY = 'dsh-bot-team:sidebar'

interface LocaleLike {
  getSnapshot(): { active: string }
  subscribe(fn: () => void): () => void
}
interface SessionListLike {
  getSnapshot(): { current?: unknown } | undefined
  subscribe(fn: () => void): () => void
}

/** DSH Web's services are read defensively: a missing or changed one must never break the page. */
const hasMethods = (v: unknown, ...names: string[]): boolean =>
  typeof v === 'object' && v !== null && names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function')
const isLocale = (v: unknown): v is LocaleLike => hasMethods(v, 'getSnapshot', 'subscribe')
const isSessionList = (v: unknown): v is SessionListLike => hasMethods(v, 'getSnapshot', 'subscribe')
const openerOf = (v: unknown): ((id: string) => void) | undefined => (hasMethods(v, 'open') ? (id) => (v as { open(id: string): void }).open(id) : undefined)
const listOf = (v: unknown): SessionListLike | undefined => {
  const list = typeof v === 'object' && v !== null ? (v as { list?: unknown }).list : undefined
  return isSessionList(list) ? list : undefined
}

export interface AppServices {
  slots: SlotsLike
  get(name: string): unknown
}

type Dialog =
  | { kind: 'bot'; botId?: string }
  | { kind: 'group'; groupId?: string }
  | { kind: 'log' }
  | { kind: 'memory'; botId: string }
  | { kind: 'usage' }
  | { kind: 'settings' }
  | { kind: 'pairing' }
  | { kind: 'secrets' }
  | ({ kind: 'part' } & PartToShow)
  | { kind: 'board'; taskId?: string }
  | undefined

/** The query that opens DSH Web with the task board shown (`/?bt-board`). */
const BOARD_QUERY = 'bt-board'

function storage(): { getItem(k: string): string | null; setItem(k: string, v: string): void } | undefined {
  try {
    return (globalThis as { localStorage?: any }).localStorage
  } catch {
    return undefined
  }
}

const BOT_FIELDS = ['name', 'role', 'instructions', 'model', 'permissionPreset', 'colour', 'avatar', 'pinned', 'hidden', 'main', 'reason'] as const
const SHAPES = ['circle', 'square', 'diamond']

export interface App {
  store: TeamStore
  TeamSidebar: ComponentType<any>
  SidebarSwitch: ComponentType<any>
  /** Which sidebar the person chose (remembered); the entry mounts or unmounts the team sidebar on it. */
  sidebar: Value<'team' | 'dsh'>
  BotDialog: ComponentType<any>
  GroupDialog: ComponentType<any>
  LogDialog: ComponentType<any>
  MemoryDialog: ComponentType<any>
  SecretCards: ComponentType<any>
  PairingDialog: ComponentType<any>
  SecretsDialog: ComponentType<any>
  UsageDialog: ComponentType<any>
  SettingsDialog: ComponentType<any>
  PartDialog: ComponentType<any>
  TaskBoard: ComponentType<any>
  SessionBadge: ComponentType<any>
  UserNode: ComponentType<any>
  ContextNode: ComponentType<any>
  AssistantNode: ComponentType<any>
}

export function makeApp(services: AppServices): App {
  const store = new TeamStore()
  const search = (globalThis as { location?: { search?: string } }).location?.search
  const atBoard = typeof search === 'string' && new URLSearchParams(search).has(BOARD_QUERY)
  const dialog = new Value<Dialog>(atBoard ? { kind: 'board' } : undefined)
  const sidebar = new Value<'team' | 'dsh'>(storage()?.getItem(SIDEBAR_KEY) === 'dsh' ? 'dsh' : 'team')
  const setSidebar = (mode: 'team' | 'dsh') => {
    try {
      storage()?.setItem(SIDEBAR_KEY, mode)
    } catch {
      // remembered only for this page
    }
    sidebar.set(mode)
  }
  const noLocale = { getSnapshot: () => ({ active: 'en' }), subscribe: () => () => {} }
  const locale = (): LocaleLike => {
    const l = services.get('locale')
    return isLocale(l) ? l : noLocale
  }
  const useLang = (): Lang => {
    const l = locale()
    return langOf(useSyncExternalStore(l.subscribe.bind(l), () => l.getSnapshot().active))
  }
  const useT = (): Translate => translator(useLang())
  const useTeam = () => useSyncExternalStore(store.subscribe, store.getSnapshot)
  const openSession = (id: string | undefined) => {
    const open = openerOf(services.get('sessions'))
    if (id && open) open(id)
  }
  const shadowed = (slot: string, key?: string) => {
    try {
      return shadowedEntry(services.slots.entries?.(slot) ?? [], isOurs, key)
    } catch {
      return undefined
    }
  }

  function Avatar({ name, colour, shape }: { name: string; colour: string; shape?: string }): ReactNode {
    return h(
      'span',
      { className: `bt-av ${SHAPES.includes(shape ?? '') ? shape : 'circle'}`, style: { background: colour }, 'aria-hidden': 'true' },
      h('span', null, initials(name)),
    )
  }

  function StatusPill({ bot, t }: { bot: BotView; t: Translate }): ReactNode {
    const text = t(`status.${bot.status}`, { count: bot.queued })
    return h('span', { className: `bt-st ${bot.status}`, 'data-status': bot.status }, text)
  }

  function BotRow({ bot, t }: { bot: BotView; t: Translate }): ReactNode {
    return h(
      'li',
      { className: 'bt-item', 'data-bot': bot.name },
      // No aria-label: the name is the visible name, role and status (axe: label-content-name-mismatch).
      h(
        'button',
        { type: 'button', className: 'bt-row', onClick: () => openSession(bot.chatSessionId) },
        h(Avatar, { name: bot.name, colour: bot.colour, shape: bot.shape }),
        h('span', { className: 'bt-who' }, h('b', null, bot.name), bot.role ? h('small', null, bot.role) : null),
        h(StatusPill, { bot, t }),
      ),
      h(
        'button',
        {
          type: 'button',
          className: 'bt-btn',
          'aria-label': t('editBot', { name: bot.name }),
          title: t('editBot', { name: bot.name }),
          onClick: () => dialog.set({ kind: 'bot', botId: bot.id }),
        },
        '✎',
      ),
    )
  }

  function GroupRow({ group, t }: { group: GroupView; t: Translate }): ReactNode {
    return h(
      'li',
      { className: 'bt-item', 'data-group': group.name },
      h(
        'button',
        { type: 'button', className: 'bt-row', onClick: () => openSession(group.roomSessionId) },
        h(Avatar, { name: group.name, colour: '#5f3dc4', shape: 'square' }),
        h('span', { className: 'bt-who' }, h('b', null, group.name), h('small', null, t('members', { count: group.members.length }))),
      ),
      h(
        'button',
        {
          type: 'button',
          className: 'bt-btn',
          'aria-label': t('group.edit', { name: group.name }),
          title: t('group.edit', { name: group.name }),
          'data-testid': 'bt-edit-group',
          onClick: () => dialog.set({ kind: 'group', groupId: group.id }),
        },
        '✎',
      ),
    )
  }

  function TeamList({ view, t }: { view: TeamView; t: Translate }): ReactNode {
    const mains = view.bots.filter((b) => b.main)
    const others = view.bots.filter((b) => !b.main && !b.hidden)
    return h(
      'div',
      null,
      view.problems.length
        ? h(
            'div',
            { role: 'alert', 'aria-label': t('problems') },
            ...view.problems.map((p) => h('span', { className: 'bt-problem', key: p.kind, 'data-problem': p.kind }, p.text)),
          )
        : null,
      h('div', { className: 'bt-sec', id: 'bt-sec-main' }, t('mainBots')),
      h(
        'ul',
        { 'aria-labelledby': 'bt-sec-main', style: { listStyle: 'none', margin: 0, padding: 0 } },
        ...mains.map((bot) => h(BotRow, { bot, t, key: bot.id })),
      ),
      h('div', { className: 'bt-sec', id: 'bt-sec-bots' }, t('bots')),
      h(
        'ul',
        { 'aria-labelledby': 'bt-sec-bots', style: { listStyle: 'none', margin: 0, padding: 0 } },
        ...others.map((bot) => h(BotRow, { bot, t, key: bot.id })),
      ),
      h(
        'div',
        { className: 'bt-sec-row' },
        h('div', { className: 'bt-sec', id: 'bt-sec-groups' }, t('groups')),
        h(
          'button',
          { type: 'button', className: 'bt-btn', 'data-testid': 'bt-new-group', onClick: () => dialog.set({ kind: 'group' }) },
          `+ ${t('group.new')}`,
        ),
      ),
      view.groups.length
        ? h(
            'ul',
            { 'aria-labelledby': 'bt-sec-groups', style: { listStyle: 'none', margin: 0, padding: 0 } },
            ...view.groups.map((group) => h(GroupRow, { group, t, key: group.id })),
          )
        : h('span', { className: 'bt-note' }, t('noGroups')),
    )
  }

  /** The board's button in the team sidebar, with the count of what waits for the person. */
  function TasksButton({ t, waiting }: { t: Translate; waiting: number | undefined }): ReactNode {
    return h(
      'button',
      { type: 'button', className: 'bt-btn', 'data-testid': 'bt-tasks', onClick: () => dialog.set({ kind: 'board' }) },
      t('tasks.open'),
      waiting
        ? h(
            'span',
            { className: 'bt-count', 'data-testid': 'bt-tasks-waiting', 'data-count': String(waiting) },
            String(waiting),
            h('span', { className: 'bt-sr' }, ` ${t('tasks.waitingBadge', { count: waiting })}`),
          )
        : null,
    )
  }

  function TeamSidebar(props: Record<string, unknown>): ReactNode {
    const t = useT()
    const team = useTeam()
    if (props.wide === false) return h('span', { className: 'bt-note', title: t('team') }, '🤖')
    return h(
      'nav',
      { className: 'bt-side', 'aria-label': t('team'), 'data-testid': 'bt-team-sidebar' },
      h(
        'div',
        { className: 'bt-head' },
        h('h2', null, t('team')),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-new-bot', onClick: () => dialog.set({ kind: 'bot' }) }, `+ ${t('newBot')}`),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-show-sessions', onClick: () => setSidebar('dsh') }, t('showSessions')),
      ),
      h(
        'div',
        { style: { display: 'flex', gap: '6px', flexWrap: 'wrap' } },
        h(TasksButton, { t, waiting: team.view?.tasksWaiting }),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-delivery-log', onClick: () => dialog.set({ kind: 'log' }) }, t('deliveryLog')),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-usage', onClick: () => dialog.set({ kind: 'usage' }) }, t('usage')),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-settings', onClick: () => dialog.set({ kind: 'settings' }) }, t('settings.open')),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-secrets', onClick: () => dialog.set({ kind: 'secrets' }) }, t('secrets.open')),
        h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-pairing', onClick: () => dialog.set({ kind: 'pairing' }) }, t('pairing.open')),
      ),
      team.view?.paused ? h('span', { className: 'bt-problem', role: 'status', 'data-testid': 'bt-paused' }, t('teamPaused')) : null,
      team.error && !team.view ? h('span', { className: 'bt-note', role: 'status', 'data-testid': 'bt-unavailable' }, t('unavailable')) : null,
      team.view ? h(TeamList, { view: team.view, t }) : team.error ? null : h('span', { className: 'bt-note' }, t('loading')),
      h(
        'a',
        { href: '/bot-team', target: '_blank', rel: 'noopener', className: 'bt-btn', style: { marginTop: '8px', alignSelf: 'flex-start' } },
        t('openStatusPage'),
      ),
    )
  }

  /** `sidebar.footer.action`: back to the team while DSH's session browser is shown. */
  function SidebarSwitch({ wide }: { wide?: boolean }): ReactNode {
    const t = useT()
    const mode = useValue(sidebar)
    if (mode === 'team') return null
    return h(
      'button',
      {
        type: 'button',
        className: 'bt-btn',
        'data-testid': 'bt-show-team',
        title: t('showTeam'),
        style: { width: wide === false ? '36px' : '100%', marginBottom: '4px', height: '32px' },
        onClick: () => setSidebar('team'),
      },
      wide === false ? '🤖' : t('showTeam'),
    )
  }

  const { BotSettings } = makeBotSettings({ refresh: () => store.refresh() })
  const { PartDialog } = makePartView({
    useT,
    useShown: () => {
      const d = useValue(dialog)
      return d?.kind === 'part' ? d : undefined
    },
    close: () => dialog.set(undefined),
  })

  function BotDialog(): ReactNode {
    const t = useT()
    const shown = useValue(dialog)
    const open = shown?.kind === 'bot' ? shown : undefined
    const team = useTeam()
    const bot = open?.botId ? team.view?.bots.find((b) => b.id === open.botId) : undefined
    const [form, setForm] = useState<Record<string, string | boolean>>({})
    const [errors, setErrors] = useState<FieldErrors>({ fields: {} })
    const [busy, setBusy] = useState(false)
    useEffect(() => {
      setErrors({ fields: {} })
      setForm(
        bot
          ? {
              name: bot.name,
              role: bot.role,
              model: bot.model ?? '',
              permissionPreset: bot.preset,
              colour: bot.colour,
              shape: bot.shape,
              pinned: bot.pinned,
              hidden: bot.hidden,
              reason: '',
            }
          : { name: '', role: '', instructions: '', model: '', colour: '#1971c2', shape: 'circle', pinned: false, hidden: false },
      )
    }, [open?.kind, open?.botId])
    useEscape(open !== undefined, () => dialog.set(undefined))
    if (!open) return null
    const set = (k: string) => (e: { target: { value: string; checked: boolean; type: string } }) =>
      setForm({ ...form, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value })
    const body = (): Record<string, unknown> => {
      const out: Record<string, unknown> = {}
      for (const k of ['name', 'role', 'instructions', 'model', 'permissionPreset', 'colour'] as const) {
        const v = form[k]
        if (typeof v !== 'string') continue
        if (k === 'model' || k === 'permissionPreset' || k === 'instructions') {
          if (v.trim()) out[k] = v.trim()
        } else out[k] = v
      }
      if (bot) {
        for (const k of ['name', 'role', 'model', 'permissionPreset', 'colour'] as const)
          if (out[k] === (k === 'permissionPreset' ? bot.preset : ((bot as any)[k] ?? ''))) delete out[k]
      }
      if (!bot || form.shape !== bot.shape) out.avatar = { kind: 'shape', shape: form.shape }
      if (!bot || form.pinned !== bot.pinned) out.pinned = form.pinned === true
      if (!bot || form.hidden !== bot.hidden) out.hidden = form.hidden === true
      return out
    }
    const run = async (work: () => Promise<unknown>) => {
      setBusy(true)
      try {
        await work()
        dialog.set(undefined)
        await store.refresh()
      } catch (error) {
        setErrors(fieldErrors(errorText(error), BOT_FIELDS))
      } finally {
        setBusy(false)
      }
    }
    const save = () => run(() => (bot ? callApi('PATCH', `/bots/${encodeURIComponent(bot.id)}`, body()) : callApi('POST', '/bots', body())))
    const remove = () => bot && run(() => callApi('DELETE', `/bots/${encodeURIComponent(bot.id)}`, { reason: String(form.reason ?? '') }))
    const field = (k: string, label: string, control: ReactNode) =>
      h(
        'div',
        { className: 'bt-field', key: k },
        h('label', { htmlFor: `bt-f-${k}` }, label),
        control,
        errors.fields[k] || (k === 'shape' && errors.fields.avatar)
          ? h('span', { className: 'bt-err', id: `bt-e-${k}`, role: 'alert', 'data-field-error': k }, errors.fields[k] ?? errors.fields.avatar)
          : null,
      )
    const input = (k: string, extra: Record<string, unknown> = {}) =>
      h('input', {
        id: `bt-f-${k}`,
        name: k,
        value: String(form[k] ?? ''),
        onChange: set(k),
        'aria-invalid': errors.fields[k] ? 'true' : undefined,
        'aria-describedby': errors.fields[k] ? `bt-e-${k}` : undefined,
        ...extra,
      })
    const check = (k: string, label: string) =>
      h(
        'div',
        { className: 'bt-field check', key: k },
        h('input', { id: `bt-f-${k}`, type: 'checkbox', checked: form[k] === true, onChange: set(k) }),
        h('label', { htmlFor: `bt-f-${k}` }, label),
      )
    const title = bot ? t('editBot', { name: bot.name }) : t('newBot')
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) dialog.set(undefined)
        },
      },
      h(
        'div',
        { className: 'bt-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'bt-dialog-title', 'data-testid': 'bt-bot-dialog' },
        h('h2', { id: 'bt-dialog-title' }, title),
        errors.general ? h('div', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-general-error' }, errors.general) : null,
        h(
          'form',
          {
            onSubmit: (e: { preventDefault(): void }) => {
              e.preventDefault()
              void save()
            },
          },
          field('name', t('name'), input('name', { autoFocus: true, maxLength: 200 })),
          field('role', t('role'), input('role', { maxLength: 400 })),
          bot
            ? null
            : field(
                'instructions',
                t('instructions'),
                h('textarea', { id: 'bt-f-instructions', rows: 3, value: String(form.instructions ?? ''), onChange: set('instructions') }),
              ),
          field('model', t('model'), input('model', { placeholder: 'deepseek/deepseek-chat' })),
          field('permissionPreset', t('preset'), input('permissionPreset')),
          field('colour', t('colour'), input('colour')),
          field(
            'shape',
            t('shape'),
            h(
              'select',
              { id: 'bt-f-shape', value: String(form.shape ?? 'circle'), onChange: set('shape') },
              ...SHAPES.map((s) => h('option', { value: s, key: s }, s)),
            ),
          ),
          check('pinned', t('pinned')),
          check('hidden', t('hidden')),
          h(
            'div',
            { className: 'bt-actions' },
            bot
              ? h(
                  'button',
                  { type: 'button', className: 'bt-btn', 'data-testid': 'bt-open-memory', onClick: () => dialog.set({ kind: 'memory', botId: bot.id }) },
                  t('memory'),
                )
              : null,
            h('button', { type: 'button', className: 'bt-btn', onClick: () => dialog.set(undefined) }, t('cancel')),
            h('button', { type: 'submit', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-save' }, t('save')),
          ),
        ),
        bot ? h(BotSettings, { key: bot.id, bot, t }) : null,
        bot?.earlierParts?.length
          ? h(
              'nav',
              { 'aria-label': t('earlierParts'), 'data-testid': 'bt-earlier-parts', style: { marginTop: '14px' } },
              h('h3', { style: { fontSize: '13px', margin: '0 0 6px' } }, t('earlierParts')),
              h(
                'ul',
                { style: { listStyle: 'none', margin: 0, padding: 0 } },
                ...bot.earlierParts.map((p) =>
                  h(
                    'li',
                    { key: p.sessionId },
                    h(
                      'button',
                      {
                        type: 'button',
                        className: 'bt-btn',
                        title: p.endReason ?? '',
                        'data-session-id': p.sessionId,
                        onClick: () => dialog.set({ kind: 'part', botName: bot.name, part: p.part, sessionId: p.sessionId }),
                      },
                      t('partLine', { part: p.part, from: p.startedAt.slice(0, 10), to: (p.endedAt ?? '').slice(0, 10) }),
                    ),
                  ),
                ),
              ),
            )
          : null,
        bot && !bot.main
          ? h(
              'div',
              { style: { marginTop: '14px', borderTop: '1px solid var(--dsw-alias-border-l2,#ccc)', paddingTop: '10px' } },
              field('reason', t('reason'), input('reason', { maxLength: 500 })),
              h(
                'div',
                { className: 'bt-actions' },
                h(
                  'button',
                  { type: 'button', className: 'bt-btn danger', disabled: busy, 'data-testid': 'bt-delete', onClick: () => void remove() },
                  t('confirmDelete', { name: bot.name }),
                ),
              ),
            )
          : null,
      ),
    )
  }

  /** The delivery log: every exchange, newest first, filterable by Bot (bounded by the route). */
  function LogDialog(): ReactNode {
    const t = useT()
    const shown = useValue(dialog)
    const team = useTeam()
    const [bot, setBot] = useState('')
    const [rows, setRows] = useState<any[] | undefined>(undefined)
    const [error, setError] = useState<string | undefined>(undefined)
    const open = shown?.kind === 'log'
    const revision = team.view?.revision
    useEffect(() => {
      if (!open) return
      let live = true
      callApi('GET', `/deliveries?limit=200${bot ? `&bot=${encodeURIComponent(bot)}` : ''}`).then(
        (r) => {
          if (live) {
            setRows(Array.isArray(r?.deliveries) ? r.deliveries : [])
            setError(undefined)
          }
        },
        (e: unknown) => {
          if (live) setError(errorText(e))
        },
      )
      return () => {
        live = false
      }
    }, [open, bot, revision])
    if (!open) return null
    const cell = (v: unknown) => h('td', null, String(v ?? ''))
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) dialog.set(undefined)
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-log-title',
          'data-testid': 'bt-log-dialog',
          style: { width: 'min(760px,94vw)' },
        },
        h('h2', { id: 'bt-log-title' }, t('deliveryLog')),
        h(
          'div',
          { className: 'bt-field' },
          h('label', { htmlFor: 'bt-log-bot' }, t('bots')),
          h(
            'select',
            { id: 'bt-log-bot', value: bot, onChange: (e: { target: { value: string } }) => setBot(e.target.value) },
            h('option', { value: '' }, t('allBots')),
            ...(team.view?.bots ?? []).map((b) => h('option', { value: b.id, key: b.id }, b.name)),
          ),
        ),
        error ? h('div', { className: 'bt-err', role: 'alert' }, error) : null,
        rows && rows.length === 0 ? h('span', { className: 'bt-note' }, t('noDeliveries')) : null,
        rows?.length
          ? h(
              'table',
              { className: 'bt-log', 'data-testid': 'bt-log-table' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ...(['log.from', 'log.to', 'log.kind', 'log.hop', 'log.time', 'log.outcome'] as const).map((k) => h('th', { key: k, scope: 'col' }, t(k))),
                ),
              ),
              h(
                'tbody',
                null,
                ...rows.map((r) =>
                  h(
                    'tr',
                    { key: r.id, 'data-delivery': r.id },
                    cell(r.fromName),
                    cell(r.toName),
                    cell(r.kind),
                    cell(r.hop),
                    cell(
                      String(r.at ?? '')
                        .replace('T', ' ')
                        .slice(0, 19),
                    ),
                    cell(r.outcome ?? r.status),
                  ),
                ),
              ),
            )
          : null,
        h('div', { className: 'bt-actions' }, h('button', { type: 'button', className: 'bt-btn', onClick: () => dialog.set(undefined) }, t('close'))),
      ),
    )
  }

  /** A Bot's memory and the team's (the memory HTTP API): read, add, forget. */
  function MemoryDialog(): ReactNode {
    const t = useT()
    const shown = useValue(dialog)
    const team = useTeam()
    const botId = shown?.kind === 'memory' ? shown.botId : undefined
    const bot = botId ? team.view?.bots.find((b) => b.id === botId) : undefined
    const [data, setData] = useState<any>(undefined)
    const [error, setError] = useState<string | undefined>(undefined)
    const [text, setText] = useState('')
    const [topic, setTopic] = useState('')
    const [teamWide, setTeamWide] = useState(false)
    const [tick, setTick] = useState(0)
    useEffect(() => {
      if (!botId) return
      let live = true
      callApi('GET', `/memory/${encodeURIComponent(botId)}`).then(
        (r) => {
          if (live) {
            setData(r)
            setError(undefined)
          }
        },
        (e: unknown) => {
          if (live) setError(errorText(e))
        },
      )
      return () => {
        live = false
      }
    }, [botId, tick])
    if (!botId) return null
    const change = async (method: string, body: unknown) => {
      try {
        await callApi(method, `/memory/${encodeURIComponent(botId)}`, body)
        setError(undefined)
        setText('')
        setTick(tick + 1)
      } catch (e) {
        setError(errorText(e))
      }
    }
    const entries: any[] = Array.isArray(data?.entries) ? data.entries.slice(0, 500) : []
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) dialog.set(undefined)
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-mem-title',
          'data-testid': 'bt-memory-dialog',
          style: { width: 'min(640px,94vw)' },
        },
        h('h2', { id: 'bt-mem-title' }, t('memoryOf', { name: bot?.name ?? botId })),
        error ? h('div', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-memory-error' }, error) : null,
        data && entries.length === 0 ? h('span', { className: 'bt-note' }, t('noMemory')) : null,
        entries.length
          ? h(
              'ul',
              { style: { listStyle: 'none', padding: 0, margin: '0 0 10px' } },
              ...entries.map((e, i) =>
                h(
                  'li',
                  { key: `${e.scope}-${e.topic ?? ''}-${i}`, className: 'bt-item', 'data-memory-entry': e.text, style: { padding: '3px 0' } },
                  h('span', { className: 'bt-st' }, t(e.scope === 'team' ? 'scope.team' : 'scope.own')),
                  e.topic ? h('small', null, e.topic) : null,
                  h('span', { style: { flex: 1 } }, String(e.text)),
                  h(
                    'button',
                    {
                      type: 'button',
                      className: 'bt-btn',
                      'aria-label': `${t('forget')}: ${String(e.text).slice(0, 60)}`,
                      onClick: () =>
                        void change('DELETE', { entry: e.text, ...(e.topic ? { topic: e.topic } : {}), ...(e.scope === 'team' ? { team: true } : {}) }),
                    },
                    t('forget'),
                  ),
                ),
              ),
            )
          : null,
        h(
          'form',
          {
            onSubmit: (e: { preventDefault(): void }) => {
              e.preventDefault()
              void change('POST', { text, ...(topic.trim() ? { topic: topic.trim() } : {}), ...(teamWide ? { team: true } : {}) })
            },
          },
          h(
            'div',
            { className: 'bt-field' },
            h('label', { htmlFor: 'bt-mem-text' }, t('newEntry')),
            h('input', { id: 'bt-mem-text', value: text, maxLength: 2000, onChange: (e: { target: { value: string } }) => setText(e.target.value) }),
          ),
          h(
            'div',
            { className: 'bt-field' },
            h('label', { htmlFor: 'bt-mem-topic' }, t('topic')),
            h('input', { id: 'bt-mem-topic', value: topic, maxLength: 60, onChange: (e: { target: { value: string } }) => setTopic(e.target.value) }),
          ),
          h(
            'div',
            { className: 'bt-field check' },
            h('input', {
              id: 'bt-mem-team',
              type: 'checkbox',
              checked: teamWide,
              onChange: (e: { target: { checked: boolean } }) => setTeamWide(e.target.checked),
            }),
            h('label', { htmlFor: 'bt-mem-team' }, t('teamWide')),
          ),
          h(
            'div',
            { className: 'bt-actions' },
            h('button', { type: 'button', className: 'bt-btn', onClick: () => dialog.set(undefined) }, t('close')),
            h('button', { type: 'submit', className: 'bt-btn primary', 'data-testid': 'bt-remember' }, t('remember')),
          ),
        ),
      ),
    )
  }

  function SessionBadge({ sessionId }: { sessionId?: string }): ReactNode {
    const t = useT()
    const team = useTeam()
    const bot = team.view?.bots.find((b) => b.chatSessionId === sessionId)
    const group = bot ? undefined : team.view?.groups.find((g) => g.roomSessionId === sessionId)
    if (bot) {
      return h(
        'span',
        { className: 'bt-badge', 'data-testid': 'bt-session-badge', title: [bot.role, bot.model, bot.preset].filter(Boolean).join(' · ') },
        h(Avatar, { name: bot.name, colour: bot.colour, shape: bot.shape }),
        h('b', null, bot.name),
        bot.role ? h('span', null, bot.role) : null,
        h(StatusPill, { bot, t }),
        h(
          'button',
          { type: 'button', className: 'bt-btn', onClick: () => dialog.set({ kind: 'bot', botId: bot.id }), 'aria-label': `${t('details')}: ${bot.name}` },
          t('details'),
        ),
      )
    }
    if (group)
      return h(
        'span',
        { className: 'bt-badge', 'data-testid': 'bt-session-badge' },
        h(Avatar, { name: group.name, colour: '#5f3dc4', shape: 'square' }),
        h('b', null, group.name),
        h('span', null, t('members', { count: group.members.length })),
      )
    return null
  }

  /** A chat-node renderer for DSH's `key` (`user`, or `context` — how DSH shows plugin-sourced messages). */
  const chatNode = (key: 'user' | 'context') =>
    function TeamNode(props: { node?: { data?: { source?: unknown; content?: unknown } } }): ReactNode {
      const t = useT()
      const team = useTeam()
      // The slot hands `{ node: { kind, data } }`; the message (source, content) is `data`.
      const message = props.node?.data
      const line = teamLine(message?.source)
      if (!line) {
        // Registered with DSH's own locale namespace, so these props are exactly the ones DSH's
        // user-message renderer gets (it declares nothing else: no store, inject or children).
        const Dsh = shadowed('conversation.chat.node', key)
        return Dsh
          ? h(Dsh, props as Record<string, unknown>)
          : h('div', { className: 'bt-line' }, h('div', { className: 'bt-body' }, nodeText(message?.content)))
      }
      if (line.kind === 'hidden') return null
      if (line.kind === 'notice') return line.text ? h('div', { className: 'bt-quiet', role: 'note', 'data-testid': 'bt-notice' }, line.text) : null
      const botOf = (id?: string) => (id ? team.view?.bots.find((b) => b.id === id) : undefined)
      if (line.kind === 'post') {
        const poster = botOf(line.fromBot)
        const name = line.from ?? 'You'
        return h(
          'div',
          { className: 'bt-line', style: { '--bt-colour': poster?.colour ?? '#868e96' }, 'data-testid': 'bt-post', 'data-post-id': line.postId },
          h(
            'header',
            null,
            h(Avatar, { name, colour: poster?.colour ?? '#868e96', shape: poster?.shape }),
            line.from ? t('postIn', { name: line.from, group: line.group }) : t('youIn', { group: line.group }),
          ),
          h('div', { className: 'bt-body' }, line.said),
        )
      }
      if (line.kind === 'report') {
        return h(
          'div',
          { className: 'bt-line', 'data-testid': 'bt-report' },
          h('header', null, line.group),
          h('div', { className: 'bt-body' }, nodeText(message?.content)),
        )
      }
      const from = botOf(line.fromBot)
      const label =
        line.type === 'reply'
          ? t('replyFrom', { name: line.from })
          : line.type === 'interrupt'
            ? t('interruptFrom', { name: line.from })
            : line.type === 'stop'
              ? t('stopFrom', { name: line.from })
              : t('messageFrom', { name: line.from })
      return h(
        'div',
        { className: 'bt-line', style: { '--bt-colour': from?.colour ?? '#4d6bfe' }, 'data-testid': 'bt-relay', 'data-kind': line.type },
        h(
          'header',
          null,
          h(Avatar, { name: line.from, colour: from?.colour ?? '#4d6bfe', shape: from?.shape }),
          from?.chatSessionId
            ? h('button', { type: 'button', className: 'bt-btn', onClick: () => openSession(from.chatSessionId), 'data-testid': 'bt-open-exchange' }, label)
            : h('span', null, label),
        ),
        h('div', { className: 'bt-body' }, nodeText(message?.content)),
      )
    }

  const pair = () => dialog.set({ kind: 'pairing' })
  const { SecretCards, PairingDialog, SecretsDialog } = makePanelDialogs({
    useLang,
    useTeam,
    useShown: () => {
      const kind = useValue(dialog)?.kind
      return kind === 'pairing' || kind === 'secrets' ? kind : undefined
    },
    pair,
    close: () => dialog.set(undefined),
    changed: () => void store.refresh(),
  })
  const { GroupDialog } = makeGroupDialog({
    useT,
    useTeam,
    useOpen: () => {
      const d = useValue(dialog)
      return d?.kind === 'group' ? d : undefined
    },
    close: () => dialog.set(undefined),
    refresh: () => store.refresh(),
  })
  const { UsageDialog } = makeUsageScreen({ useT, useTeam, useOpen: () => useValue(dialog)?.kind === 'usage', close: () => dialog.set(undefined) })
  const { SettingsDialog } = makeSettingsDialog({
    useT,
    useLang,
    useTeam,
    useOpen: () => useValue(dialog)?.kind === 'settings',
    close: () => dialog.set(undefined),
    pair,
    changed: () => void store.refresh(),
  })

  const { TaskBoard } = makeTaskBoard({
    useLang,
    useTeam,
    store,
    useOpen: () => {
      const d = useValue(dialog)
      return d?.kind === 'board' ? (d.taskId ? { taskId: d.taskId } : {}) : undefined
    },
    openTask: (taskId) => dialog.set(taskId ? { kind: 'board', taskId } : { kind: 'board' }),
    close: () => dialog.set(undefined),
    pair,
    openNow: atBoard,
  })
  // The opt-in notification: a rise in what waits for the person, while this page is open.
  const watch = new WaitingWatch()
  store.subscribe(() =>
    watch.check(store.getSnapshot().view?.tasksWaiting, () => {
      const t = translator(langOf(locale().getSnapshot().active))
      const count = store.getSnapshot().view?.tasksWaiting ?? 0
      return { title: t('tasks.notifyTitle'), body: t('tasks.notifyBody', { count }) }
    }),
  )

  const noList = { getSnapshot: () => undefined, subscribe: () => () => {} }
  /** The Session DSH Web shows now (its sessions service's selection), if it can be read. */
  const useCurrentSession = (): string | undefined => {
    const list = listOf(services.get('sessions')) ?? noList
    const current = useSyncExternalStore(list.subscribe.bind(list), () => list.getSnapshot()?.current)
    return typeof current === 'string' ? current : undefined
  }

  function RoomItems({ items }: { items: readonly RoomItem[] }): ReactNode {
    const t = useT()
    const team = useTeam()
    return h(
      'div',
      { 'data-testid': 'bt-room-answer' },
      ...items.map((item) => {
        if (item.kind === 'quiet')
          return h('div', { key: item.id, className: 'bt-quiet', role: 'note', 'data-testid': 'bt-room-quiet' }, t(item.key, { name: item.name }))
        if (item.kind === 'note') return h('div', { key: item.id, className: 'bt-quiet', role: 'note', 'data-testid': 'bt-room-note' }, item.text)
        const bot = team.view?.bots.find((b) => b.id === item.from)
        const colour = bot?.colour ?? '#868e96'
        return h(
          'div',
          {
            key: item.id,
            className: 'bt-line',
            style: { '--bt-colour': colour },
            'data-testid': 'bt-room-post',
            'data-post-id': item.id,
            'data-from': item.name,
          },
          h('header', null, h(Avatar, { name: item.name, colour, shape: bot?.shape }), h('span', null, item.name)),
          h('div', { className: 'bt-body' }, item.text),
        )
      }),
    )
  }

  /**
   * `assistant-step`: in a room Session, the room's answer drawn as one message per member post
   * (fetched by the rounds DSH keeps with the message) and, while it runs, the round's posts so far
   * and a progress line, and the room's own lines (opening, held, turn limit) as quiet lines from the
   * answer's notes; anything else — every other Session, an answer written before notes existed — is DSH's.
   */
  function AssistantNode(props: { node?: { data?: { status?: unknown; finalNode?: { messageId?: unknown } } } }): ReactNode {
    const t = useT()
    const team = useTeam()
    const current = useCurrentSession()
    const group = current ? team.view?.groups.find((g) => g.roomSessionId === current) : undefined
    const data = props.node?.data
    const messageId = typeof data?.finalNode?.messageId === 'string' ? data.finalNode.messageId : undefined
    const running = data?.status === 'running'
    // A finished round's progress is the previous round's until the next one's first event.
    const latest = group && running ? team.rooms?.[group.id] : undefined
    const progress = latest && !latest.done ? latest : undefined
    const [answer, setAnswer] = useState<{ key: string; items?: RoomItem[] | undefined } | undefined>(undefined)
    const nameOf = (id: string) => team.view?.bots.find((b) => b.id === id)?.name
    const key = group
      ? messageId
        ? `m:${messageId}`
        : progress
          ? `r:${progress.round}:${progress.posted.length}:${progress.speaking ?? ''}:${progress.done}`
          : ''
      : ''
    useEffect(() => {
      if (!group || !key) return
      let live = true
      const path = messageId
        ? `/rooms/${encodeURIComponent(group.id)}/posts?message=${encodeURIComponent(messageId)}`
        : `/rooms/${encodeURIComponent(group.id)}/posts?round=${encodeURIComponent(progress!.round)}`
      callApi('GET', path).then(
        (r) => {
          if (live) setAnswer({ key, items: messageId ? roomItems(r, nameOf) : livePosts(r, nameOf) })
        },
        () => {
          if (live) setAnswer({ key, items: undefined })
        },
      )
      return () => {
        live = false
      }
    }, [group?.id, key])
    const items = answer && (answer.key === key || (!messageId && answer.key.startsWith('r:'))) ? answer.items : undefined
    if (group && running && progress) {
      return h(
        'div',
        null,
        items?.length ? h(RoomItems, { items }) : null,
        h('div', { className: 'bt-quiet', role: 'status', 'data-testid': 'bt-room-progress' }, progressText(progress, t)),
      )
    }
    if (group && messageId && items) return h(RoomItems, { items })
    const Dsh = shadowed('conversation.chat.node', 'assistant-step')
    return Dsh ? h(Dsh, props as Record<string, unknown>) : null
  }

  return {
    store,
    sidebar,
    TeamSidebar,
    SidebarSwitch,
    BotDialog,
    GroupDialog,
    LogDialog,
    MemoryDialog,
    SecretCards,
    PairingDialog,
    SecretsDialog,
    UsageDialog,
    SettingsDialog,
    PartDialog,
    TaskBoard,
    SessionBadge,
    UserNode: chatNode('user'),
    ContextNode: chatNode('context'),
    AssistantNode,
  }
}

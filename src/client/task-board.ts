/**
 * The task board inside DSH Web: one column per status and the person's inbox, a card per task
 * (title, assignee, blockers, attempts, tokens), and a task's detail (brief, acceptance, history,
 * artifacts, its transcript read-only) with the person's actions (assign, cancel, accept, reject)
 * through the tasks API, whose refusal is shown as it is. Cards are memoized and a change redraws
 * only the columns it touches (`task-board-model.ts`). Deliberately decides nothing.
 */
import { memo, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react'
import { translator, type Lang, type Translate } from './i18n.ts'
import type { PartLine } from './part-lines.ts'
import { partLines } from './part-lines.ts'
import { sessionHistory, TranscriptList } from './part-view.ts'
import { h, useEscape } from './shared.ts'
import {
  BoardModel,
  type BranchView,
  COLUMNS,
  type ProjectPanelView,
  readProjectPanel,
  taskActions,
  type BoardColumn,
  type TaskCard,
} from './task-board-model.ts'
import { notifyState, setNotify, type NotifyState } from './task-notify.ts'
import { ApiError, callApi, pairingToken, type TeamState, type TeamStore } from './team-client.ts'
import { errorText } from '../core/errors.ts'

export interface BoardDeps {
  useLang: () => Lang
  useTeam: () => TeamState
  store: TeamStore
  /** Is the board open, and which task's detail (hooks on the dialog value)? */
  useOpen: () => { taskId?: string } | undefined
  openTask: (taskId: string | undefined) => void
  close: () => void
  pair: () => void
  /** The page opened with the board shown: read the board at once, before the shell mounts it. */
  openNow?: boolean
}

/** The board's live data while it is open: one load, then the stream's `tasks` events. */
class LiveBoard {
  model = new BoardModel()
  version = 0
  error: string | undefined
  /** The project panel (`GET /project/log`): the project, the integration log, each project task's commits. */
  project: ProjectPanelView | undefined
  projectError: string | undefined
  private projectLoading = false
  private projectAgain = false
  private readonly listeners = new Set<() => void>()
  private off: (() => void) | undefined
  private loading = false
  private again = false
  private readonly store: TeamStore
  constructor(store: TeamStore) {
    this.store = store
  }

  getVersion = (): number => this.version
  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l)
    return () => {
      this.listeners.delete(l)
    }
  }
  private bump(): void {
    this.version++
    for (const l of this.listeners) l()
  }

  start(): void {
    if (this.off) return
    this.off = this.store.onTasks((data) => {
      const r = this.model.apply(data)
      if (r === 'reload') this.reload()
      else if (r === 'changed') this.bump()
      // A project task moved: its commits, its merge or the integration log may have too.
      const cards = (data as { cards?: unknown } | undefined)?.cards
      if (r === 'reload' || (Array.isArray(cards) && cards.some((c) => c && typeof c === 'object' && 'branch' in c))) this.reloadProject()
    })
    this.reload()
    this.reloadProject()
  }

  reloadProject(): void {
    if (this.projectLoading) {
      this.projectAgain = true
      return
    }
    this.projectLoading = true
    callApi('GET', '/project/log')
      .then(
        (r) => {
          const view = readProjectPanel(r)
          this.projectError = view ? undefined : 'the project API answered something unexpected'
          if (view) this.project = view
        },
        (e: unknown) => {
          this.projectError = errorText(e)
        },
      )
      .finally(() => {
        this.projectLoading = false
        if (this.projectAgain && this.off) {
          this.projectAgain = false
          this.reloadProject()
        }
        this.bump()
      })
      .catch(() => {})
  }

  stop(): void {
    this.off?.()
    this.off = undefined
    this.model = new BoardModel()
    this.error = undefined
    this.project = undefined
    this.projectError = undefined
  }

  reload(): void {
    if (this.loading) {
      this.again = true
      return
    }
    this.loading = true
    callApi('GET', '/tasks/board')
      .then(
        (r) => {
          this.error = this.model.load(r) ? undefined : 'the tasks API answered something unexpected'
        },
        (e: unknown) => {
          this.error = errorText(e)
        },
      )
      .finally(() => {
        this.loading = false
        if (this.again && this.off) {
          this.again = false
          this.reload()
        }
        this.bump()
      })
      .catch(() => {})
  }
}

const fmtTokens = (n: number) => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(2)}M`)

interface CardProps {
  card: TaskCard
  who: string
  git: BranchView | undefined
  t: Translate
  open: (id: string) => void
}

const short = (commit: string) => commit.slice(0, 12)

/** A project task's branch, commits, last check and merge state, as the server computed them. */
function CardGit({ card, git, t }: { card: TaskCard; git: BranchView | undefined; t: Translate }): ReactNode {
  const c = card.conflict
  const merge =
    card.merge === 'merged'
      ? t('tasks.mergedAt', { commit: card.mergeCommit ? short(card.mergeCommit) : '?' })
      : card.merge === 'conflict' && c
        ? t('tasks.conflictIn', {
            paths: c.paths.join(', '),
            more: c.pathCount > c.paths.length ? t('tasks.conflictMore', { count: c.pathCount - c.paths.length }) : '',
            ours: short(c.ours),
            theirs: short(c.theirs),
          })
        : t('tasks.notMerged')
  return h(
    'div',
    { className: 'bt-card-git', 'data-testid': 'bt-card-git' },
    h(
      'small',
      { 'data-testid': 'bt-card-branch' },
      card.branch,
      git ? ` · ${t(git.more ? 'tasks.commitsMore' : 'tasks.commits', { count: git.commits })}` : '',
    ),
    git?.recent.length
      ? h(
          'ul',
          { className: 'bt-card-commits', 'data-testid': 'bt-card-commits' },
          ...git.recent.map((x) => h('li', { key: x.commit }, h('code', null, x.commit.slice(0, 7)), ' ', x.subject)),
        )
      : null,
    card.submitted ? h('small', { 'data-testid': 'bt-card-submitted' }, t('tasks.submitted', { commit: card.submitted.slice(0, 12) })) : null,
    card.check
      ? h('small', { 'data-testid': 'bt-card-check', 'data-check': card.check }, t('tasks.check', { summary: card.checkSummary ?? card.check }))
      : null,
    card.kept ? h('small', { 'data-testid': 'bt-card-kept' }, t('tasks.kept', { dir: card.kept.dir, why: card.kept.why })) : null,
    card.checkTail ? h('pre', { className: 'bt-card-tail', 'data-testid': 'bt-card-tail' }, card.checkTail) : null,
    h('small', { 'data-testid': 'bt-card-merge', 'data-merge': card.merge ?? 'none' }, merge),
  )
}

const Card = memo(function Card({ card, who, git, t, open }: CardProps): ReactNode {
  const meta: string[] = [who]
  if (card.attempts)
    meta.push(card.failed ? t('tasks.attemptsFailed', { count: card.attempts, failed: card.failed }) : t('tasks.attempts', { count: card.attempts }))
  if (card.tokens) meta.push(t('tasks.tokens', { count: fmtTokens(card.tokens) }))
  return h(
    'li',
    { className: `bt-card${card.waiting ? ' waits' : ''}`, 'data-task': card.id, 'data-status': card.status },
    h(
      'button',
      { type: 'button', className: 'bt-card-open', onClick: () => open(card.id) },
      h('span', { className: 'bt-card-title' }, card.title),
      h('small', null, `${card.id} · ${meta.join(' · ')}`),
      card.blockedBy.length ? h('small', { className: 'bt-card-blockers' }, t('tasks.blockedBy', { ids: card.blockedBy.join(', ') })) : null,
    ),
    card.branch ? h(CardGit, { card, git, t }) : null,
  )
})

interface ColumnProps {
  column: BoardColumn
  cards: readonly TaskCard[]
  branches: Readonly<Record<string, BranchView>> | undefined
  names: ReadonlyMap<string, string>
  t: Translate
  open: (id: string) => void
}

const Column = memo(function Column({ column, cards, branches, names, t, open }: ColumnProps): ReactNode {
  const name = (id: string) => names.get(id) ?? id
  // In the inbox every card is the person's: it names the Bot that asked instead.
  const who = (c: TaskCard) =>
    c.column === 'inbox' && c.creator !== 'user'
      ? t('tasks.askedBy', { name: name(c.creator) })
      : c.assignee === undefined
        ? t('tasks.nobody')
        : c.assignee === 'user'
          ? t('bots.you')
          : name(c.assignee)
  const title = `bt-col-${column}`
  return h(
    'section',
    { className: `bt-col${column === 'inbox' ? ' inbox' : ''}`, 'aria-labelledby': title, 'data-column': column },
    h('h3', { id: title }, t(`tasks.col.${column}`), ' ', h('span', { className: 'bt-col-count' }, String(cards.length))),
    cards.length
      ? h('ul', null, ...cards.map((card) => h(Card, { key: card.id, card, who: who(card), git: branches?.[card.id], t, open })))
      : h('p', { className: 'bt-quiet' }, t(column === 'inbox' ? 'tasks.inboxEmpty' : 'tasks.empty')),
  )
})

export function makeTaskBoard(deps: BoardDeps) {
  const live = new LiveBoard(deps.store)
  if (deps.openNow) live.start()
  const openTask = (id: string) => deps.openTask(id)

  function NotifySwitch({ t }: { t: Translate }): ReactNode {
    const [state, setState] = useState<NotifyState>(notifyState())
    if (state === 'unsupported') return null
    if (state === 'denied') return h('span', { className: 'bt-hint', 'data-testid': 'bt-notify-denied' }, t('tasks.notifyDenied'))
    return h(
      'button',
      {
        type: 'button',
        className: 'bt-btn',
        'aria-pressed': state === 'on' ? 'true' : 'false',
        'data-testid': 'bt-notify',
        onClick: () => void setNotify(state !== 'on').then(setState),
      },
      t('tasks.notify'),
    )
  }

  function TaskBoard(): ReactNode {
    const lang = deps.useLang()
    const open = deps.useOpen()
    const team = deps.useTeam()
    const isOpen = open !== undefined
    useEffect(() => {
      if (!isOpen) return
      live.start()
      return () => live.stop()
    }, [isOpen])
    useSyncExternalStore(live.subscribe, live.getVersion)
    // Stable across pushes of the team view: cards redraw only when what they show changes.
    const t = useMemo(() => translator(lang), [lang])
    const bots = team.view?.bots ?? []
    const namesKey = bots.map((b) => `${b.id}\u0000${b.name}`).join('\u0001')
    const names = useMemo(() => new Map(bots.map((b) => [b.id, b.name])), [namesKey])
    useEscape(isOpen && !open?.taskId, deps.close)
    if (!open) return null
    const model = live.model
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
        { className: 'bt-dialog bt-board', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'bt-board-title', 'data-testid': 'bt-board' },
        h(
          'div',
          { className: 'bt-board-head' },
          h('h2', { id: 'bt-board-title' }, t('tasks.title')),
          model.loaded
            ? h('span', { className: 'bt-hint', 'data-testid': 'bt-board-count' }, t('tasks.count', { count: model.size, waiting: model.waiting }))
            : null,
          h(NotifySwitch, { t }),
          h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.close() }, t('close')),
        ),
        live.error ? h('p', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-board-error' }, live.error) : null,
        live.project?.project ? h(ProjectPanel, { view: live.project, t }) : null,
        !model.loaded && !live.error ? h('span', { className: 'bt-note' }, t('loading')) : null,
        model.loaded
          ? h(
              'div',
              { className: 'bt-cols' },
              ...COLUMNS.map((c) => h(Column, { key: c, column: c, cards: model.column(c), branches: live.project?.branches, names, t, open: openTask })),
            )
          : null,
        model.hiddenClosed ? h('p', { className: 'bt-quiet' }, t('tasks.hiddenClosed', { count: model.hiddenClosed })) : null,
      ),
      open.taskId ? h(TaskDetail, { taskId: open.taskId, t, names, updatedAt: model.get(open.taskId)?.updatedAt }) : null,
    )
  }

  function ProjectPanel({ view, t }: { view: ProjectPanelView; t: Translate }): ReactNode {
    const [check, setCheck] = useState('')
    const [busy, setBusy] = useState(false)
    const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>(undefined)
    // Pairing in another dialog changes the token: read the panel again, so the release is offered.
    const token = pairingToken()
    useEffect(() => live.reloadProject(), [token])
    const p = view.project!
    const release = async () => {
      setBusy(true)
      try {
        const r = (await callApi('POST', '/project/release', { check: check.trim() })) as { release?: { from?: string; to?: string; fastForward?: boolean } }
        const from = String(r.release?.from ?? '')
        const to = String(r.release?.to ?? '')
        const how = t(r.release?.fastForward ? 'project.fastForward' : 'project.mergeCommit')
        setOutcome({ ok: true, text: t('project.released', { branch: p.branch, from: short(from), to: short(to), how }) })
      } catch (e) {
        setOutcome({ ok: false, text: errorText(e) })
      } finally {
        setBusy(false)
        live.reloadProject()
      }
    }
    const when = (at: number) => new Date(at * 1000).toLocaleString()
    return h(
      'section',
      { className: 'bt-project', 'aria-labelledby': 'bt-project-title', 'data-testid': 'bt-project' },
      h('h3', { id: 'bt-project-title' }, t('project.title')),
      h(
        'dl',
        { className: 'bt-facts' },
        h('dt', null, t('project.repo')),
        h('dd', { 'data-testid': 'bt-project-path' }, p.path),
        h('dt', null, t('project.target')),
        h('dd', { 'data-testid': 'bt-project-target', 'data-head': p.targetHead ?? '' }, p.targetHead ? `${p.branch} · ${short(p.targetHead)}` : p.branch),
        h('dt', null, t('project.integration')),
        h('dd', { 'data-testid': 'bt-project-integration', 'data-head': p.integrationHead ?? '' }, p.integrationHead ? short(p.integrationHead) : '—'),
      ),
      view.note ? h('p', { className: 'bt-hint bt-left' }, view.note) : null,
      live.projectError ? h('p', { className: 'bt-err', role: 'alert' }, live.projectError) : null,
      h('h4', { className: 'bt-sec', id: 'bt-project-log' }, t('project.log')),
      view.log.length
        ? h(
            'ol',
            { className: 'bt-list', 'aria-labelledby': 'bt-project-log', 'data-testid': 'bt-integration-log' },
            ...view.log.map((e) =>
              h(
                'li',
                { key: e.commit, 'data-commit': e.commit, 'data-task': e.taskId ?? '' },
                h('code', null, short(e.commit)),
                ` · ${e.taskId ? `${e.taskId}${e.title ? ` ${e.title}` : ''}` : e.subject} · ${when(e.at)}`,
              ),
            ),
          )
        : h('p', { className: 'bt-quiet bt-left' }, t('project.logEmpty')),
      h(
        'div',
        { className: 'bt-field' },
        h('label', { htmlFor: 'bt-release-check' }, t('project.check')),
        h('input', {
          id: 'bt-release-check',
          value: check,
          maxLength: 4000,
          spellCheck: false,
          onChange: (e: { target: { value: string } }) => setCheck(e.target.value),
        }),
      ),
      view.paired
        ? null
        : h(
            'p',
            { className: 'bt-hint bt-left', 'data-testid': 'bt-release-unpaired' },
            t('project.unpaired'),
            ' ',
            h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.pair() }, t('tasks.pair')),
          ),
      h(
        'div',
        { className: 'bt-actions bt-start' },
        h(
          'button',
          {
            type: 'button',
            className: 'bt-btn primary',
            'data-testid': 'bt-release',
            disabled: busy || !view.paired || !check.trim(),
            onClick: () => void release(),
          },
          t('project.release'),
        ),
      ),
      outcome
        ? h(
            'p',
            outcome.ok
              ? { className: 'bt-hint bt-left', role: 'status', 'data-testid': 'bt-release-result' }
              : { className: 'bt-err bt-text', role: 'alert', 'data-testid': 'bt-release-error' },
            outcome.text,
          )
        : null,
    )
  }

  function TaskDetail({ taskId, t, names, updatedAt }: { taskId: string; t: Translate; names: ReadonlyMap<string, string>; updatedAt?: string }): ReactNode {
    const team = deps.useTeam()
    const [task, setTask] = useState<any>(undefined)
    const [error, setError] = useState<{ text: string; pair: boolean } | undefined>(undefined)
    const [reason, setReason] = useState('')
    const [to, setTo] = useState('')
    const [busy, setBusy] = useState(false)
    const [lines, setLines] = useState<PartLine[] | undefined | 'error'>(undefined)
    const [tick, setTick] = useState(0)
    useEffect(() => {
      let alive = true
      callApi('GET', `/tasks/${encodeURIComponent(taskId)}`).then(
        (r) => {
          if (alive) setTask(r?.task)
        },
        (e: unknown) => {
          if (alive) setError({ text: errorText(e), pair: false })
        },
      )
      return () => {
        alive = false
      }
    }, [taskId, updatedAt, tick])
    useEffect(() => {
      setLines(undefined)
      setError(undefined)
      setReason('')
    }, [taskId])
    useEscape(true, () => deps.openTask(undefined))
    const name = (id: string | undefined) => (id === undefined ? t('tasks.nobody') : id === 'user' ? t('bots.you') : (names.get(id) ?? id))
    const act = async (path: string, body: unknown, under = 'tasks') => {
      setBusy(true)
      try {
        await callApi('POST', `/${under}/${encodeURIComponent(taskId)}/${path}`, body)
        setError(undefined)
        setReason('')
        setTick((n) => n + 1)
      } catch (e) {
        setError({ text: errorText(e), pair: e instanceof ApiError && e.status === 403 })
      } finally {
        setBusy(false)
      }
    }
    const showTranscript = (sessionId: string) => {
      setLines(undefined)
      sessionHistory(sessionId).then(
        (events) => setLines(partLines(events)),
        () => setLines('error'),
      )
    }
    const assignee: string | undefined = task?.assignee ? (task.assignee.kind === 'bot' ? task.assignee.botId : 'user') : undefined
    const status: string | undefined = task?.status
    const can = taskActions(task)
    const sessionId: string | undefined = task?.sessionId ?? task?.attempts?.at(-1)?.sessionId
    const reasonField = h(
      'div',
      { className: 'bt-field' },
      h('label', { htmlFor: 'bt-task-reason' }, t(can.question ? 'tasks.answerLabel' : 'tasks.reason')),
      h('input', { id: 'bt-task-reason', value: reason, maxLength: 500, onChange: (e: { target: { value: string } }) => setReason(e.target.value) }),
    )
    const withReason = () => (reason.trim() ? { reason: reason.trim() } : {})
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) deps.openTask(undefined)
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-task-title',
          'data-testid': 'bt-task-detail',
          'data-task': taskId,
          'data-status': status,
          style: { width: 'min(720px,96vw)' },
        },
        h('h2', { id: 'bt-task-title' }, task ? `${task.id} · ${task.title}` : taskId),
        error
          ? h(
              'div',
              { className: 'bt-err', role: 'alert', 'data-testid': 'bt-task-error' },
              error.text,
              error.pair
                ? h('button', { type: 'button', className: 'bt-btn', style: { marginLeft: '8px' }, onClick: () => deps.pair() }, t('tasks.pair'))
                : null,
            )
          : null,
        task === undefined && !error ? h('span', { className: 'bt-note' }, t('loading')) : null,
        task
          ? h(
              'div',
              null,
              h(
                'dl',
                { className: 'bt-facts' },
                h('dt', null, t('tasks.status')),
                h('dd', { 'data-testid': 'bt-task-status' }, COLUMNS.includes(status as BoardColumn) ? t(`tasks.col.${status as BoardColumn}`) : status),
                h('dt', null, t('tasks.assignee')),
                h('dd', null, name(assignee)),
                h('dt', null, t('tasks.creator')),
                h('dd', null, name(task.creator?.kind === 'bot' ? task.creator.botId : 'user')),
                h('dt', null, t('tasks.tokensLabel')),
                h('dd', null, fmtTokens((task.tokens?.input ?? 0) + (task.tokens?.cached ?? 0) + (task.tokens?.output ?? 0))),
                task.waitsFor ? h('dt', null, t('tasks.waitsFor')) : null,
                task.waitsFor ? h('dd', null, String(task.waitsFor)) : null,
              ),
              h('h3', { className: 'bt-sec' }, t('tasks.brief')),
              h('p', { className: 'bt-text', 'data-testid': 'bt-task-brief' }, String(task.brief)),
              task.acceptance ? h('h3', { className: 'bt-sec' }, t('tasks.acceptance')) : null,
              task.acceptance ? h('p', { className: 'bt-text' }, String(task.acceptance)) : null,
              task.attempts?.length ? h('h3', { className: 'bt-sec' }, t('tasks.attemptsLabel')) : null,
              task.attempts?.length
                ? h(
                    'ul',
                    { className: 'bt-list' },
                    ...task.attempts
                      .slice(-20)
                      .map((a: any) =>
                        h('li', { key: a.n }, `#${a.n} · ${name(a.botId ?? assignee)} · ${a.outcome ?? t('tasks.running')}${a.reason ? ` — ${a.reason}` : ''}`),
                      ),
                  )
                : null,
              task.artifacts?.length ? h('h3', { className: 'bt-sec' }, t('tasks.artifacts')) : null,
              task.artifacts?.length
                ? h(
                    'ul',
                    { className: 'bt-list', 'data-testid': 'bt-task-artifacts' },
                    ...task.artifacts.slice(-50).map((a: any, i: number) => h('li', { key: i }, `${a.kind}: ${String(a.value).slice(0, 2000)}`)),
                  )
                : null,
              h('h3', { className: 'bt-sec' }, t('tasks.history')),
              h(
                'ol',
                { className: 'bt-list', 'data-testid': 'bt-task-history' },
                ...(task.history ?? [])
                  .slice(-50)
                  .map((e: any, i: number) =>
                    h(
                      'li',
                      { key: i },
                      `${String(e.at).slice(0, 19).replace('T', ' ')} · ${e.actor?.kind === 'bot' ? name(e.actor.botId) : e.actor?.kind === 'user' ? t('bots.you') : t('tasks.system')} · ${e.what}${e.reason ? ` — ${e.reason}` : ''}`,
                    ),
                  ),
              ),
              h('h3', { className: 'bt-sec' }, t('tasks.transcript')),
              sessionId
                ? lines === undefined
                  ? h(
                      'button',
                      { type: 'button', className: 'bt-btn', 'data-testid': 'bt-task-transcript', onClick: () => showTranscript(sessionId) },
                      t('tasks.showTranscript'),
                    )
                  : lines === 'error'
                    ? h('p', { className: 'bt-err', role: 'alert' }, t('tasks.transcriptFailed'))
                    : h(TranscriptList, {
                        lines,
                        label: t('tasks.transcript'),
                        who: (l: PartLine) =>
                          l.who === 'bot' ? name(assignee) : l.who === 'task' ? t('tasks.briefLine') : l.who === 'relay' ? (l.from ?? '?') : t('bots.you'),
                      })
                : h('p', { className: 'bt-quiet bt-left' }, t('tasks.noTranscript')),
              can.cancel
                ? h(
                    'section',
                    { className: 'bt-settings', 'aria-labelledby': 'bt-task-actions' },
                    h('h3', { id: 'bt-task-actions' }, t('tasks.actions')),
                    can.question
                      ? h(
                          'div',
                          { 'data-testid': 'bt-task-question' },
                          h('p', { className: 'bt-text' }, can.question.text),
                          can.question.choices.length
                            ? h(
                                'div',
                                { className: 'bt-actions bt-start' },
                                ...can.question.choices.map((c, i) =>
                                  h(
                                    'button',
                                    { type: 'button', key: i, className: 'bt-btn', disabled: busy, onClick: () => void act('answer', { choice: i }, 'inbox') },
                                    c,
                                  ),
                                ),
                              )
                            : null,
                        )
                      : null,
                    can.approval
                      ? h(
                          'div',
                          { 'data-testid': 'bt-task-approval' },
                          h('p', { className: 'bt-text' }, t('tasks.approvalOf', { tool: can.approval.tool, why: can.approval.why })),
                          h('pre', { className: 'bt-text' }, can.approval.args),
                          h(
                            'div',
                            { className: 'bt-actions bt-start' },
                            h(
                              'button',
                              { type: 'button', className: 'bt-btn primary', disabled: busy, onClick: () => void act('allow', {}, 'inbox') },
                              t('tasks.allow'),
                            ),
                            h(
                              'button',
                              { type: 'button', className: 'bt-btn', disabled: busy, onClick: () => void act('deny', withReason(), 'inbox') },
                              t('tasks.deny'),
                            ),
                          ),
                        )
                      : null,
                    reasonField,
                    can.question
                      ? h(
                          'div',
                          { className: 'bt-actions bt-start' },
                          h(
                            'button',
                            {
                              type: 'button',
                              className: 'bt-btn primary',
                              disabled: busy || !reason.trim(),
                              onClick: () => void act('answer', { text: reason.trim() }, 'inbox'),
                            },
                            t('tasks.answer'),
                          ),
                        )
                      : null,
                    can.review
                      ? h(
                          'div',
                          { className: 'bt-actions bt-start' },
                          h(
                            'button',
                            {
                              type: 'button',
                              className: 'bt-btn primary',
                              disabled: busy,
                              onClick: () => void act('review', { verdict: 'accept', ...withReason() }),
                            },
                            t('tasks.accept'),
                          ),
                          h(
                            'button',
                            { type: 'button', className: 'bt-btn', disabled: busy, onClick: () => void act('review', { verdict: 'reject', ...withReason() }) },
                            t('tasks.reject'),
                          ),
                        )
                      : null,
                    can.assign
                      ? h(
                          'div',
                          { className: 'bt-inline', style: { marginBottom: '8px' } },
                          h('label', { htmlFor: 'bt-task-to' }, t('tasks.assignTo')),
                          h(
                            'select',
                            { id: 'bt-task-to', value: to, onChange: (e: { target: { value: string } }) => setTo(e.target.value) },
                            h('option', { value: '' }, t('tasks.nobody')),
                            ...(team.view?.bots ?? []).map((b) => h('option', { key: b.id, value: b.id }, b.name)),
                          ),
                          h(
                            'button',
                            { type: 'button', className: 'bt-btn', disabled: busy, onClick: () => void act('reassign', { to: to || null, ...withReason() }) },
                            assignee ? t('tasks.reassign') : t('tasks.assign'),
                          ),
                        )
                      : null,
                    h(
                      'div',
                      { className: 'bt-actions bt-start' },
                      h(
                        'button',
                        { type: 'button', className: 'bt-btn danger', disabled: busy, onClick: () => void act('cancel', withReason()) },
                        t('tasks.cancel'),
                      ),
                    ),
                  )
                : null,
            )
          : null,
        h('div', { className: 'bt-actions' }, h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.openTask(undefined) }, t('close'))),
      ),
    )
  }

  return { TaskBoard }
}

/**
 * `botDiagnostics`: `bot/diagnostics.jsonl`, one scrubbed, clipped line per notable event (refusals,
 * failed turns, the store's mode and diagnostics, lock changes, failed deliveries, pause, any
 * `note()`), rotated by size, 0600. Injects nothing, so it is up first. Deliberately keeps no chat
 * text, never throws, ships nothing anywhere.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import { z } from 'zod'
import { clip } from '../core/text-limits.ts'
import { listenToRefusals, TeamRefusal } from '../core/refusal.ts'
import type { Diagnostic, TeamState } from '../store/index.ts'
import { scrubText, scrubValue, type Mask } from './scrub.ts'
import { errorText } from '../core/errors.ts'
import { warn } from '../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botDiagnostics: BotDiagnostics
  }
}

export const DIAGNOSTICS_FILE = 'diagnostics.jsonl'
export const ROTATED_FILE = 'diagnostics.1.jsonl'
export const DIAGNOSTIC_MESSAGE_MAX = 2_000
export const STACK_MAX = 6_000

export const Config = z.object({
  /** Absolute path of the bot folder. */
  dir: z.string().refine((p) => path.isAbsolute(p), { message: 'dir must be an absolute path' }),
  /** Rotate past this size (the rotated file is kept, the one before it dropped). */
  maxBytes: z
    .int()
    .min(4 * 1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
})
export type Config = z.input<typeof Config>

/** What a caller notes: a short kind (`refusal`, `steward`, `error`, …), a sentence, optional facts. */
export interface DiagnosticEvent {
  kind: string
  level?: 'info' | 'warn' | 'error'
  message: string
  /** An error: its message and stack are written (scrubbed). */
  error?: unknown
  /** Small JSON facts (ids, counts, modes); scrubbed too. */
  data?: Record<string, unknown>
}

/** One line of the file, scrubbed and clipped (pure). */
export function diagnosticLine(event: DiagnosticEvent, at: Date, mask?: Mask): string {
  const kind = clip(String(event.kind || 'note').replace(/[^\w.:-]/g, '_'), 60)
  const err = event.error
  const errorFields =
    err === undefined
      ? {}
      : err instanceof Error
        ? {
            error: clip(scrubText(`${err.name}: ${err.message}`, mask), DIAGNOSTIC_MESSAGE_MAX),
            ...(err.stack ? { stack: clip(scrubText(err.stack, mask), STACK_MAX) } : {}),
          }
        : { error: clip(scrubText(String(err), mask), DIAGNOSTIC_MESSAGE_MAX) }
  const record = {
    at: at.toISOString(),
    level: event.level ?? (err !== undefined ? 'error' : 'info'),
    kind,
    pid: process.pid,
    message: clip(scrubText(String(event.message ?? ''), mask), DIAGNOSTIC_MESSAGE_MAX),
    ...errorFields,
    ...(event.data ? { data: scrubValue(event.data, mask) } : {}),
  }
  const line = JSON.stringify(record)
  // Facts that were too big are dropped rather than let one line grow the file past reason.
  return line.length > DIAGNOSTIC_MESSAGE_MAX + STACK_MAX + 2_000 ? JSON.stringify({ ...record, data: '[too large]' }) : line
}

const OPEN_APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0)

export class BotDiagnostics extends Service {
  readonly config: z.output<typeof Config>
  readonly file: string
  readonly rotated: string
  private queue: Promise<void> = Promise.resolve()
  private warned = false
  private readonly seenFailed = new Set<string>()
  /** Store diagnostics already written (the store keeps its last 50). */
  private readonly storeSeen = new Set<string>()
  private wasPaused: boolean | undefined

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botDiagnostics')
    this.config = Config.parse(config)
    this.file = path.join(this.config.dir, DIAGNOSTICS_FILE)
    this.rotated = path.join(this.config.dir, ROTATED_FILE)
  }

  async [Service.init](): Promise<void> {
    this.ctx.inject(['botStore'], (ctx) => {
      const store = ctx.botStore
      const status = store.status()
      this.note({
        kind: 'start',
        message: `team state opened as ${status.mode}${status.reason ? ` (${status.reason})` : ''}: ${status.message}`,
        data: { mode: status.mode, revision: status.revision, lockless: status.lockless },
      })
      this.observe(store.state)
      this.noteStoreDiagnostics(store.diagnostics())
      store.subscribe((state) => {
        this.observe(state)
        this.noteStoreDiagnostics(store.diagnostics())
      })
    })
    // Every refusal a Bot's tool or the HTTP API answered (authority, limits, bad input).
    this.ctx.effect(
      () =>
        listenToRefusals((error, channel) => {
          this.note({ kind: 'refusal', message: `${channel}: ${error.message}`, ...(error instanceof TeamRefusal ? { data: { code: error.code } } : {}) })
        }),
      'bot-diagnostics:refusals',
    )
    // A Bot's turn that ended in an error (a provider failure, a crash in the loop).
    this.ctx.on('session/event', (session, event) => {
      if (event.type !== 'turn/end') return
      const reason = (event.data as { turn?: number; reason?: { kind?: string; error?: { message?: string; code?: string } } }).reason
      if (reason?.kind !== 'error') return
      const sessionId = String(session.id)
      const roster = this.ctx.get('botRoster')
      const owner = roster?.ownerOf(sessionId)
      if (!owner) return // not a Session of the team
      const who = roster!.bot(owner.botId)?.name ?? owner.botId
      const where = owner.kind === 'member' ? ` in group ${owner.groupId}` : ''
      this.note({
        kind: 'turn-failed',
        level: 'error',
        message: `${who}'s turn ${(event.data as { turn?: number }).turn ?? '?'}${where} failed: ${reason.error?.message ?? 'no message'}`,
        data: { sessionId, botId: owner.botId, code: reason.error?.code ?? 'UNKNOWN' },
      })
    })
    this.ctx.on('bot-team/context', ({ botId, sessionId, action, reason, to }) => {
      this.note({
        kind: 'steward',
        message: `${action} for ${botId} (${sessionId}${to ? ` → ${to}` : ''}): ${reason}`,
        data: { botId, sessionId, action, ...(to ? { to } : {}) },
      })
    })
    this.ctx.on('bot-team/writer', ({ from, lockless, revision }) => {
      this.note({
        kind: 'lock',
        message: `this process became the writer${from ? ` (was ${from})` : ''}${lockless ? ', without a lock' : ''}`,
        data: { from, lockless, revision },
      })
    })
  }

  /** The secrets service's masker, when one is mounted (another issue's service; optional). */
  private mask(): Mask {
    const secrets = this.ctx.get('botSecrets')
    return typeof secrets?.mask === 'function' ? (text) => secrets.mask!(text) : undefined
  }

  /** Record one event (never throws; the write is queued in order). */
  note(event: DiagnosticEvent): void {
    let line: string
    try {
      line = diagnosticLine(event, new Date(), this.mask())
    } catch (error) {
      line = JSON.stringify({ at: new Date().toISOString(), level: 'error', kind: 'diagnostics', message: `could not record an event: ${errorText(error)}` })
    }
    this.queue = this.queue
      .then(() => this.append(`${line}\n`))
      .catch((error: unknown) => {
        if (this.warned) return
        this.warned = true
        warn(this.ctx, `could not write ${DIAGNOSTICS_FILE}`, error, 'diagnostics')
      })
  }

  /** Resolves once every noted line is written (tests, download). */
  flushed(): Promise<void> {
    return this.queue
  }

  /** The whole log, oldest first: the rotated file, then the current one. */
  async read(): Promise<string> {
    await this.flushed()
    const parts: string[] = []
    for (const f of [this.rotated, this.file]) {
      try {
        parts.push(await fsp.readFile(f, 'utf8'))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    }
    return parts.join('')
  }

  private async append(line: string): Promise<void> {
    await fsp.mkdir(this.config.dir, { recursive: true, mode: 0o700 })
    const size = await fsp.lstat(this.file).then(
      (s) => s.size,
      () => 0,
    )
    if (size > 0 && size + Buffer.byteLength(line) > this.config.maxBytes) await fsp.rename(this.file, this.rotated)
    const handle = await fsp.open(this.file, OPEN_APPEND, 0o600)
    try {
      await handle.write(line)
    } finally {
      await handle.close()
    }
  }

  /** What team state shows that is worth a line: failed deliveries, the pause switch. */
  private observe(state: Readonly<TeamState>): void {
    for (const d of state.deliveries) {
      if (d.status !== 'failed' || this.seenFailed.has(d.id)) continue
      this.seenFailed.add(d.id)
      this.note({
        kind: 'delivery-failed',
        level: 'warn',
        message: `delivery ${d.id} (${d.kind}) from ${d.from} to ${d.to} failed: ${d.outcome ?? 'no reason recorded'}`,
        data: { id: d.id, from: d.from, to: d.to },
      })
    }
    const paused = state.paused !== undefined
    if (this.wasPaused !== undefined && paused !== this.wasPaused) {
      this.note(
        paused
          ? { kind: 'pause', message: `the team was paused by ${state.paused!.by}${state.paused!.reason ? `: ${state.paused!.reason}` : ''}` }
          : { kind: 'resume', message: 'the team was resumed; held work is released' },
      )
    }
    this.wasPaused = paused
  }

  private noteStoreDiagnostics(list: readonly Diagnostic[]): void {
    for (const d of list) {
      const key = `${d.at}|${d.code}|${d.message}`
      if (this.storeSeen.has(key)) continue
      if (this.storeSeen.size >= 1_000) this.storeSeen.clear()
      this.storeSeen.add(key)
      this.note({ kind: `store:${d.code}`, level: d.level, message: d.message, ...(d.file ? { data: { file: d.file } } : {}) })
    }
  }
}

/**
 * `botSecrets`: `bot/secrets.json`, `request_secret` offered on own chats, settling a card, the
 * settings changes, revocation on deletion, the `bot-team-secrets` shell-env contributor (values only
 * for the Bots in scope), `mask` / `holdsSecret` for every service; masking hooks on
 * `tools/post-execute`, `agent/pre-step`, `llm/stream`. Deliberately no encryption, HTTP or drawing.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage, freezeMessage } from '@deepseek-ai/dsh-llm'
import { z } from 'zod'
import { TeamRefusal } from '../core/refusal.ts'
import type { ShellEnv } from '../dsh/services.ts'
import type { BotRoster } from '../roster/service.ts'
import { secretNoteSource } from '../core/sources.ts'
import type { BotStore } from '../store/index.ts'
import {
  emptySecrets,
  fileStamp,
  readSecretsFile,
  REQUESTS_MAX,
  SECRETS_FILE,
  SECRETS_MAX,
  writeSecretsFile,
  type SecretRecord,
  type SecretRequest,
  type SecretScope,
  type SecretsData,
} from './file.ts'
import { createMasker, maskDeep, type Masker } from './masker.ts'
import { envVar, secretName, secretPurpose, secretValue } from './names.ts'
import { requestSecretTool } from './tools.ts'
import { warn } from '../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botSecrets: BotSecrets
  }
  interface Events {
    /** A Bot asked for a secret (a card is open). Carries no value. */
    'bot-team/secret-requested'(payload: { request: Readonly<SecretRequest> }): void
  }
}

export const Config = z.object({
  /** The bot folder (absolute); the file is `<dir>/secrets.json`. */
  dir: z.string(),
})
export type Config = z.input<typeof Config>

/** What the settings list and the card show: never the value. */
export interface SecretView {
  name: string
  variable: string
  purpose: string
  scope: 'all' | { bots: { id: string; name: string }[] }
  requestedBy?: { id: string; name: string }
  createdAt: string
  updatedAt: string
  lastUsedAt?: string
}

export interface RequestView {
  id: string
  bot: { id: string; name: string }
  name: string
  variable: string
  purpose: string
  createdAt: string
  /** The name is already saved (for other Bots): saving replaces its one value. */
  exists: boolean
}

export type ScopeChoice = 'bot' | 'all'

const CONTRIBUTOR = 'bot-team-secrets'
const nowIso = () => new Date().toISOString()

export class BotSecrets extends Service {
  static inject = ['botStore', 'botRoster', 'agents', 'llm']
  static Config = Config

  readonly file: string
  private data: SecretsData = emptySecrets()
  private problem: string | undefined
  private stamp = ''
  private masker: Masker = createMasker([])
  private queue: Promise<unknown> = Promise.resolve()
  private readonly rewritten = new WeakSet<object>()
  private shell: { env: ShellEnv; dispose?: () => void; names: string } | undefined
  private usedDirty = false
  private readonly counters = { requestsRewritten: 0, resolved: 0 }

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botSecrets')
    this.file = path.join(Config.parse(config).dir, SECRETS_FILE)
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  async [Service.init](): Promise<void> {
    this.reload()
    const mask = (s: string) => this.masker.mask(s)
    // Twice. Appended: runs inside the prepended listeners, so DSH's spill policy (prepended; it
    // saves the whole result to a spill artifact after its `next()`) saves masked text. Prepended
    // (registered after DSH's): the last word on what is logged and what the model reads.
    for (const prepend of [false, true]) {
      this.ctx.on(
        'tools/post-execute',
        async (_exec, result, next) => {
          const d = await next()
          if (!this.active()) return d
          if (d.kind === 'block') {
            const feedback = maskDeep(d.feedback, mask)
            return feedback === d.feedback ? d : { ...d, feedback }
          }
          if (d.value !== undefined) {
            const value = maskDeep(d.value, mask)
            return value === d.value ? d : { ...d, value }
          }
          if (!result.isError) {
            // The tool's value also feeds the durable `meta` (presentationMeta) of the logged
            // result: replace the value, and DSH re-renders content and meta from the masked one.
            // Value and content are exclusive, so another listener's content for THIS result is
            // dropped (the tool's own render is used): safety over presentation, only when a
            // saved value is in it.
            const value = maskDeep(result.value, mask)
            if (value !== result.value) return { kind: 'accept', value, ...(d.additionalContexts ? { additionalContexts: d.additionalContexts } : {}) }
          }
          const content = d.content ?? result.content
          const masked = maskDeep(content, mask)
          return masked === content ? d : { ...d, content: masked }
        },
        { prepend },
      )
    }
    this.ctx.on(
      'agent/pre-step',
      async (_p, next) => {
        const d = await next()
        if (d.kind !== 'enter' || !this.active()) return d
        let changed = false
        const messages = d.messages.map((m) => {
          const content = maskDeep(m.content, mask)
          if (content === m.content) return m
          changed = true
          return freezeMessage({ ...m, content })
        })
        return changed ? { ...d, messages } : d
      },
      { prepend: true },
    )
    this.ctx.on('llm/stream', (options, next) => {
      if (this.rewritten.has(options) || !this.active()) return next()
      const messages = maskDeep(options.messages, mask)
      const system = maskDeep(options.system, mask)
      if (messages === options.messages && system === options.system) return next()
      this.counters.requestsRewritten++
      const clean = { ...options, messages, ...(system !== undefined ? { system } : {}) }
      this.rewritten.add(clean)
      return this.ctx.llm.stream(clean)
    })
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: () => [requestSecretTool(this)] })
    this.ctx.on('bot-team/bot-deleted', ({ botId }) => {
      void this.forgetBot(botId).catch(() => {})
    })
    this.ctx.inject(['shellEnv'], (ctx) => {
      this.shell = { env: ctx.shellEnv, names: '' }
      this.registerEnv()
      ctx.effect(
        () => () => {
          this.shell?.dispose?.()
          this.shell = undefined
        },
        'bot-secrets:shell-env',
      )
    })
  }

  // ── reading ──────────────────────────────────────────────────────────────────────────────────

  /** Re-read the file (start, and in a follower when the writer replaced it). */
  private reload(): void {
    const read = readSecretsFile(this.file)
    this.stamp = read.stamp
    if (read.kind === 'broken') {
      this.problem = `${read.problem}; no secret is served or saved until it is repaired or removed`
      this.data = emptySecrets()
    } else {
      this.problem = undefined
      this.data = read.data
    }
    this.rebuild()
  }

  /**
   * Followers pick up the writer's changes on use: one `stat` per hook call or public read (the
   * hooks then mask with the current masker directly, not once per string). The writer's own
   * copy is always current.
   */
  private follow(): void {
    if (this.store.isWriter()) return
    if (fileStamp(this.file) !== this.stamp) this.reload()
  }

  private rebuild(): void {
    this.masker = createMasker(this.data.secrets.map((s) => ({ name: s.name, value: s.value })))
    this.registerEnv()
  }

  private active(): boolean {
    this.follow()
    return this.data.secrets.length > 0
  }

  /** `text` with every saved value (and common encoding) replaced by `[secret:NAME]`. */
  mask(text: string): string {
    this.follow()
    return this.masker.mask(text)
  }

  /**
   * Masking for capped output (a check's tail): `margin`, the bytes to keep beyond the cap (read as
   * the output arrives), and `tail`, the last `cap` bytes masked and cut (`Masker.maskTail`).
   */
  readonly capped = {
    margin: (): number => {
      this.follow()
      return this.masker.margin
    },
    tail: (bytes: Uint8Array, cap: number): string => {
      this.follow()
      return this.masker.maskTail(bytes, cap)
    },
  }

  /** Does `text` hold a saved value? (memory refuses such an entry) */
  holdsSecret(text: string): boolean {
    this.follow()
    return this.masker.has(text)
  }

  /** Why secrets are unavailable, if they are (a broken file). */
  status(): { secrets: number; requests: number; problem?: string } {
    return { secrets: this.data.secrets.length, requests: this.data.requests.length, ...(this.problem ? { problem: this.problem } : {}) }
  }

  stats(): Readonly<{ requestsRewritten: number; resolved: number }> {
    return { ...this.counters }
  }

  private botRef(id: string): { id: string; name: string } {
    return { id, name: this.store.state.bots[id]?.name ?? id }
  }

  list(): SecretView[] {
    this.follow()
    return this.data.secrets.map((s) => this.view(s)).sort((a, b) => a.name.localeCompare(b.name))
  }

  private view(s: SecretRecord): SecretView {
    return {
      name: s.name,
      variable: envVar(s.name),
      purpose: s.purpose,
      scope: s.scope === 'all' ? 'all' : { bots: s.scope.map((id) => this.botRef(id)) },
      ...(s.requestedBy ? { requestedBy: this.botRef(s.requestedBy) } : {}),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      ...(s.lastUsedAt ? { lastUsedAt: s.lastUsedAt } : {}),
    }
  }

  requests(): RequestView[] {
    this.follow()
    return this.data.requests.map((r) => ({
      id: r.id,
      bot: this.botRef(r.botId),
      name: r.name,
      variable: envVar(r.name),
      purpose: r.purpose,
      createdAt: r.createdAt,
      exists: this.data.secrets.some((s) => s.name === r.name),
    }))
  }

  /** Is `name` in the shell of Bot `botId`? */
  availableTo(name: string, botId: string): boolean {
    this.follow()
    const s = this.data.secrets.find((x) => x.name === name)
    return s !== undefined && inScope(s.scope, botId)
  }

  // ── the shell environment ───────────────────────────────────────────────────────────────────

  /** (Re-)register the contributor when the set of names changed; DSH throws on an undeclared key. */
  private registerEnv(): void {
    const shell = this.shell
    if (!shell) return
    const names = this.data.secrets.map((s) => s.name).sort()
    const key = names.join(',')
    if (shell.dispose && shell.names === key) return
    shell.dispose?.()
    shell.dispose = undefined
    shell.names = key
    if (!names.length) return
    const declared = new Set(names.map(envVar))
    const variables = Object.fromEntries(
      names.map((n) => [envVar(n), { description: `Team secret ${n} (only in the shells of the Bots it is shared with; the value is never shown)` }]),
    )
    try {
      shell.dispose = shell.env.register({ name: CONTRIBUTOR, variables, resolve: (execution) => this.resolve(execution, declared) })
    } catch (error) {
      warn(this.ctx, 'secrets could not be offered to the shell', error, 'secrets')
    }
  }

  /** The values for one shell execution. Never throws: a throw here breaks bash for every Session. */
  private resolve(execution: { agent?: Agent; arguments?: unknown }, declared: ReadonlySet<string>): Record<string, string> {
    try {
      const agent = execution.agent
      if (!agent) return {}
      const owner = this.roster.ownerOf(String(agent.id))
      if (!owner || !this.roster.bot(owner.botId)) return {}
      this.follow()
      const command = JSON.stringify(execution.arguments ?? '')
      const out: Record<string, string> = {}
      for (const s of this.data.secrets) {
        const key = envVar(s.name)
        if (!declared.has(key) || !inScope(s.scope, owner.botId)) continue
        out[key] = s.value
        if (command.includes(key)) this.noteUsed(s)
      }
      this.counters.resolved++
      return out
    } catch {
      return {}
    }
  }

  private noteUsed(s: SecretRecord): void {
    s.lastUsedAt = nowIso()
    if (!this.store.isWriter() || this.usedDirty) return
    this.usedDirty = true
    void this.serial(async () => {
      this.usedDirty = false
      await this.save()
    }).catch(() => {})
  }

  // ── changes (team writer only, one at a time) ─────────────────────────────────────────────

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run)
    this.queue = next.catch(() => {})
    return next
  }

  /** Resolves when every change queued so far is done. */
  async settled(): Promise<void> {
    await this.queue.then(
      () => {},
      () => {},
    )
  }

  private requireWriter(): void {
    if (!this.store.isWriter()) {
      throw new TeamRefusal('unavailable', `secrets can only be changed in the DSH process that writes the team (${this.store.status().message}).`)
    }
    if (this.problem) throw new TeamRefusal('unavailable', this.problem)
  }

  private async save(): Promise<void> {
    await writeSecretsFile(this.file, this.data)
    this.stamp = fileStamp(this.file)
  }

  /** Apply `change` to a copy, save it, then make it current (a failed save changes nothing). */
  private async commit(change: (d: SecretsData) => void): Promise<void> {
    const draft: SecretsData = structuredClone(this.data)
    change(draft)
    const before = this.data
    this.data = draft
    try {
      await this.save()
    } catch (error) {
      this.data = before
      throw error
    }
    this.rebuild()
  }

  /** The `request_secret` tool: record a request from a Bot's own chat. Returns the model's answer. */
  request(sessionId: string, rawName: unknown, rawPurpose: unknown): Promise<string> {
    return this.serial(async () => {
      const owner = this.roster.ownerOf(sessionId)
      const bot = owner && this.roster.bot(owner.botId)
      if (owner?.kind !== 'own' || !bot) throw new TeamRefusal('forbidden', 'request_secret works only in your own chat with the user (not in a group).')
      const name = secretName(rawName)
      if (!name.ok) throw new TeamRefusal('invalid', name.problem)
      const purpose = secretPurpose(rawPurpose)
      if (!purpose.ok) throw new TeamRefusal('invalid', purpose.problem)
      const variable = envVar(name.value)
      if (this.availableTo(name.value, bot.id)) {
        return `${name.value} is already available: use "$${variable}" in bash (e.g. ${name.value}="$${variable}" some-command). You cannot see the value; never print it.`
      }
      this.requireWriter()
      const request: SecretRequest = { id: `secret-${randomUUID()}`, botId: bot.id, sessionId, name: name.value, purpose: purpose.value, createdAt: nowIso() }
      await this.commit((d) => {
        d.requests = d.requests.filter((r) => !(r.botId === bot.id && r.name === name.value))
        if (d.requests.length >= REQUESTS_MAX)
          throw new TeamRefusal('limit', `there are already ${REQUESTS_MAX} open secret requests; ask the user to answer or cancel some first.`)
        d.requests.push(request)
      })
      this.ctx.emit('bot-team/secret-requested', { request })
      return `Asked the user for ${name.value}: a secret card is shown on the team page, where the user enters the value (never in this chat). End your turn now. You will get a note when it is saved (then use "$${variable}" in bash) or declined. Do not ask for the value in chat.`
    })
  }

  private findRequest(id: string): SecretRequest {
    const r = this.data.requests.find((x) => x.id === id)
    if (!r) throw new TeamRefusal('not-found', `no open secret request "${id.slice(0, 80)}" (it was answered, cancelled, or its Bot was deleted).`)
    return r
  }

  /** The card's Save: store the value for the asking Bot (`bot`) or every Bot (`all`), tell the Bots that asked. */
  fulfil(requestId: string, rawValue: unknown, choice: ScopeChoice): Promise<SecretView> {
    return this.serial(async () => {
      this.requireWriter()
      const request = this.findRequest(requestId)
      const value = secretValue(rawValue)
      if (!value.ok) throw new TeamRefusal('invalid', value.problem)
      if (!this.roster.bot(request.botId)) throw new TeamRefusal('not-found', 'the Bot that asked was deleted.')
      const saved = await this.put(request.name, value.value, choice === 'all' ? 'all' : [request.botId], request.purpose, request.botId)
      await this.notifyReady(request.name)
      return saved
    })
  }

  /** The card's Cancel: drop the request and tell the Bot the user declined. */
  decline(requestId: string): Promise<void> {
    return this.serial(async () => {
      this.requireWriter()
      const request = this.findRequest(requestId)
      await this.commit((d) => {
        d.requests = d.requests.filter((r) => r.id !== request.id)
      })
      await this.note(
        request.botId,
        request.name,
        `The user declined to give ${request.name} (secret card cancelled). Do not ask for it again unless the user brings it up; continue without it or explain what cannot be done.`,
      )
    })
  }

  /** Settings: add or replace a value and/or change its scope or purpose. */
  set(rawName: unknown, input: { value?: unknown; scope?: SecretScope; purpose?: unknown }): Promise<SecretView> {
    return this.serial(async () => {
      this.requireWriter()
      const name = secretName(rawName)
      if (!name.ok) throw new TeamRefusal('invalid', name.problem)
      const existing = this.data.secrets.find((s) => s.name === name.value)
      let value = existing?.value
      if (input.value !== undefined) {
        const v = secretValue(input.value)
        if (!v.ok) throw new TeamRefusal('invalid', v.problem)
        value = v.value
      }
      if (value === undefined) throw new TeamRefusal('invalid', `${name.value} is not saved yet: give its value.`)
      let purpose = existing?.purpose ?? ''
      if (input.purpose !== undefined) {
        const p = secretPurpose(input.purpose)
        if (!p.ok) throw new TeamRefusal('invalid', p.problem)
        purpose = p.value
      }
      const scope = input.scope ?? existing?.scope ?? []
      if (scope !== 'all') for (const id of scope) if (!this.roster.bot(id)) throw new TeamRefusal('not-found', `no live Bot with id "${id.slice(0, 80)}".`)
      const saved = await this.put(name.value, value, scope, purpose, existing?.requestedBy, true)
      await this.notifyReady(name.value)
      return saved
    })
  }

  /**
   * Save one name's one value. `scope` from a card widens (a secret shared with all stays so; a
   * list gains the Bot); from settings (`exact`) it replaces.
   */
  private async put(name: string, value: string, scope: SecretScope, purpose: string, requestedBy: string | undefined, exact = false): Promise<SecretView> {
    let result: SecretRecord | undefined
    await this.commit((d) => {
      const at = nowIso()
      const existing = d.secrets.find((s) => s.name === name)
      if (existing) {
        existing.value = value
        existing.scope = exact ? scope : widen(existing.scope, scope)
        existing.purpose = purpose || existing.purpose
        existing.updatedAt = at
        result = existing
      } else {
        if (d.secrets.length >= SECRETS_MAX) throw new TeamRefusal('limit', `at most ${SECRETS_MAX} secrets can be saved; delete some first.`)
        result = { name, value, purpose, scope, ...(requestedBy ? { requestedBy } : {}), createdAt: at, updatedAt: at }
        d.secrets.push(result)
      }
    })
    return this.view(result!)
  }

  /** Requests for `name` whose Bot now has it are settled: each Bot gets a note. */
  private async notifyReady(name: string): Promise<void> {
    const ready = this.data.requests.filter((r) => r.name === name && this.availableTo(name, r.botId))
    if (!ready.length) return
    await this.commit((d) => {
      d.requests = d.requests.filter((r) => !ready.some((x) => x.id === r.id))
    })
    const variable = envVar(name)
    for (const r of ready) {
      await this.note(
        r.botId,
        name,
        `The user saved ${name}. It is now in your bash environment as $${variable}: use "$${variable}" in commands (e.g. ${name}="$${variable}" some-command). You cannot see the value; never print, echo, log or send it.`,
      )
    }
  }

  /** Delete a secret: gone from every shell from the next command on. */
  delete(rawName: unknown): Promise<void> {
    return this.serial(async () => {
      this.requireWriter()
      const name = secretName(rawName)
      if (!name.ok) throw new TeamRefusal('invalid', name.problem)
      if (!this.data.secrets.some((s) => s.name === name.value)) throw new TeamRefusal('not-found', `no saved secret ${name.value}.`)
      await this.commit((d) => {
        d.secrets = d.secrets.filter((s) => s.name !== name.value)
      })
    })
  }

  /** A deleted Bot loses every secret scoped to it (a secret left with no Bot is deleted) and its requests. */
  private forgetBot(botId: string): Promise<void> {
    return this.serial(async () => {
      if (!this.store.isWriter() || this.problem) return
      const touches = this.data.requests.some((r) => r.botId === botId) || this.data.secrets.some((s) => s.scope !== 'all' && s.scope.includes(botId))
      if (!touches) return
      await this.commit((d) => {
        d.requests = d.requests.filter((r) => r.botId !== botId)
        for (const s of d.secrets) if (s.scope !== 'all') s.scope = s.scope.filter((id) => id !== botId)
        d.secrets = d.secrets.filter((s) => s.scope === 'all' || s.scope.length > 0)
      })
    })
  }

  /** A plugin note in the Bot's own chat (starts a turn as the person's doing). Never holds a value. */
  private async note(botId: string, name: string, text: string): Promise<void> {
    try {
      const agent = await this.roster.agentOf(botId)
      agent.followup(createUserMessage({ content: [{ type: 'text', text: this.masker.mask(text) }], source: secretNoteSource(name, `Secret ${name}`) }))
    } catch (error) {
      warn(this.ctx, `could not tell Bot ${botId} about secret ${name}`, error, 'secrets')
    }
  }
}

function inScope(scope: SecretScope, botId: string): boolean {
  return scope === 'all' || scope.includes(botId)
}

function widen(current: SecretScope, add: SecretScope): SecretScope {
  if (current === 'all' || add === 'all') return 'all'
  return [...new Set([...current, ...add])]
}

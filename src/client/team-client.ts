/**
 * The client's one way to the plugin's routes: the live team view from `/bot-team/api/events`
 * (`TeamStore`), JSON calls and downloads with a deadline, the pairing token sent on every call.
 * Never throws into React: a failing API is a state. Deliberately no rendering.
 */
import type { TeamView } from '../web/team-view.ts'
import { readProgress, type RoomProgressView } from './room-view.ts'
import { errorText } from '../core/errors.ts'

export type { TeamView, BotView, GroupView } from '../web/team-view.ts'

export const API = '/bot-team/api'
/** Where this browser keeps its pairing token (one origin: DSH Web and the `/bot-team` page share it). */
export const PAIRING_TOKEN_KEY = 'bot-team:pairing-token'
const PAIRING_HEADER = 'x-bot-team-pairing'
export const REQUEST_TIMEOUT_MS = 10_000

export interface TeamState {
  view?: TeamView
  error?: string
  /** The latest `room` event per group (a round's progress), pushed over the same stream. */
  rooms?: Readonly<Record<string, RoomProgressView>>
  /** Counts the stream's `secrets` events (a Bot asked for a secret): the secret card re-reads on a change. */
  secrets?: number
}

/** This browser's pairing token, if it was paired (undefined when storage is off). */
export function pairingToken(): string | undefined {
  try {
    return (globalThis as { localStorage?: { getItem(k: string): string | null } }).localStorage?.getItem(PAIRING_TOKEN_KEY) ?? undefined
  } catch {
    return undefined
  }
}

/** Keep (or, with `undefined`, forget) this browser's pairing token; storage off: pairing lasts for no page. */
export function setPairingToken(token: string | undefined): void {
  try {
    const storage = (globalThis as { localStorage?: { setItem(k: string, v: string): void; removeItem(k: string): void } }).localStorage
    if (token) storage?.setItem(PAIRING_TOKEN_KEY, token)
    else storage?.removeItem(PAIRING_TOKEN_KEY)
  } catch {
    // storage off
  }
}

/** Check an answer's shape (pure): a team view, or `undefined`. */
export function readTeamView(value: unknown): TeamView | undefined {
  if (!value || typeof value !== 'object') return undefined
  const v = value as Partial<TeamView>
  if (!Array.isArray(v.bots) || !Array.isArray(v.groups) || !Array.isArray(v.problems) || typeof v.mode !== 'string') return undefined
  const okBot = (b: unknown) =>
    !!b && typeof b === 'object' && typeof (b as { id?: unknown }).id === 'string' && typeof (b as { name?: unknown }).name === 'string'
  if (!v.bots.every(okBot) || !v.groups.every(okBot)) return undefined
  return v as TeamView
}

export class ApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/**
 * One call to the plugin's API; a refusal is an `ApiError` carrying the service's own message.
 * Every call carries the pairing token when this browser has one: routes that raise a Bot's
 * authority accept only a paired browser, and `GET /pairing` says whether this one is.
 */
export function callApi(method: string, path: string, body?: unknown): Promise<any> {
  return request(method, path, body, REQUEST_TIMEOUT_MS, async (res) => {
    const text = await res.text()
    let json: any
    try {
      json = text ? JSON.parse(text) : {}
    } catch {
      json = { error: text.slice(0, 300) }
    }
    if (!res.ok) throw new ApiError(res.status, typeof json?.error === 'string' ? json.error : `HTTP ${res.status}`)
    return json
  })
}

/** How long a download (a backup of a whole team) may take. */
export const DOWNLOAD_TIMEOUT_MS = 300_000

/** A download from the plugin's API (a backup, the diagnostics log): its bytes and the file name it names. */
export function downloadApi(method: string, path: string, body?: unknown): Promise<{ blob: Blob; fileName?: string }> {
  return request(method, path, body, DOWNLOAD_TIMEOUT_MS, async (res) => {
    if (!res.ok) {
      const json = await res.json().catch(() => ({}))
      throw new ApiError(res.status, typeof json?.error === 'string' ? json.error : `HTTP ${res.status}`)
    }
    const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1]
    return { blob: await res.blob(), ...(fileName ? { fileName } : {}) }
  })
}

async function request<T>(method: string, path: string, body: unknown, timeoutMs: number, read: (res: Response) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  const token = pairingToken()
  try {
    const res = await fetch(`${API}${path}`, {
      method,
      credentials: 'same-origin',
      signal: controller.signal,
      // Every change is sent as JSON, with a body or without: the routes' fence refuses any other write.
      headers: { ...(method === 'GET' ? {} : { 'content-type': 'application/json' }), ...(token ? { [PAIRING_HEADER]: token } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return await read(res)
  } finally {
    clearTimeout(timer)
  }
}

type EventSourceLike = { addEventListener(type: string, fn: (e: any) => void): void; close(): void; onerror: ((e: unknown) => void) | null }

/**
 * The team's event stream. A paired browser first takes a ticket (EventSource sends no header), so
 * its stream gets one of the slots the server keeps for paired browsers; without one it opens as
 * any page does.
 */
function openFeed(): EventSourceLike | undefined {
  if (typeof EventSource !== 'function') return undefined
  if (!pairingToken()) return new EventSource(`${API}/events`) as unknown as EventSourceLike
  const listeners: [string, (e: any) => void][] = []
  let source: EventSource | undefined
  let closed = false
  const feed: EventSourceLike = {
    addEventListener(type, fn) {
      listeners.push([type, fn])
      source?.addEventListener(type, fn)
    },
    close() {
      closed = true
      source?.close()
    },
    onerror: null,
  }
  void callApi('POST', '/events/ticket', {})
    .then(
      (body) => (body as { ticket?: unknown }).ticket,
      () => undefined,
    )
    .then((ticket) => {
      if (closed) return
      source = new EventSource(`${API}/events${typeof ticket === 'string' ? `?ticket=${encodeURIComponent(ticket)}` : ''}`)
      for (const [type, fn] of listeners) source.addEventListener(type, fn)
      source.onerror = (e) => feed.onerror?.(e)
    })
  return feed
}

/** The live team, shared by every component of the page. */
export class TeamStore {
  private state: TeamState = {}
  private readonly listeners = new Set<() => void>()
  private source: EventSourceLike | undefined
  private readonly open: () => EventSourceLike | undefined
  private readonly taskListeners = new Set<(data: unknown) => void>()
  private lost = false

  constructor(open: () => EventSourceLike | undefined = openFeed) {
    this.open = open
  }

  getSnapshot = (): TeamState => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    this.start()
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Listen to the stream's `tasks` events (the cards that changed); after the stream was lost and
   * came back, listeners get `{reload: true}` (events may have been missed).
   */
  onTasks(listener: (data: unknown) => void): () => void {
    this.taskListeners.add(listener)
    this.start()
    return () => {
      this.taskListeners.delete(listener)
    }
  }

  private tellTasks(data: unknown): void {
    for (const l of this.taskListeners) {
      try {
        l(data)
      } catch {
        // a listener's failure is its own
      }
    }
  }

  private set(next: TeamState): void {
    this.state = next
    for (const l of this.listeners) {
      try {
        l()
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Take a view that arrived (the stream's event, or an answer to a change). */
  accept(value: unknown): void {
    const view = readTeamView(value)
    if (view) this.set({ view, ...(this.state.secrets ? { secrets: this.state.secrets } : {}), ...(this.state.rooms ? { rooms: this.state.rooms } : {}) })
    else this.set({ ...this.state, error: 'the team API answered something unexpected' })
  }

  private start(): void {
    if (this.source) return
    try {
      this.source = this.open()
    } catch (error) {
      this.set({ ...this.state, error: String(error) })
      return
    }
    if (!this.source) return
    this.source.addEventListener('team', (e: { data?: unknown }) => {
      if (this.lost) {
        this.lost = false
        this.tellTasks({ reload: true })
      }
      try {
        this.accept(JSON.parse(String(e.data)))
      } catch {
        this.set({ ...this.state, error: 'the team API sent a broken event' })
      }
    })
    this.source.addEventListener('tasks', (e: { data?: unknown }) => {
      try {
        this.tellTasks(JSON.parse(String(e.data)))
      } catch {
        this.tellTasks({ reload: true })
      }
    })
    this.source.addEventListener('secrets', () => this.set({ ...this.state, secrets: (this.state.secrets ?? 0) + 1 }))
    this.source.addEventListener('room', (e: { data?: unknown }) => {
      let progress: RoomProgressView | undefined
      try {
        progress = readProgress(JSON.parse(String(e.data)))
      } catch {
        progress = undefined
      }
      if (progress) this.set({ ...this.state, rooms: { ...this.state.rooms, [progress.groupId]: progress } })
    })
    // EventSource retries by itself; until then the sidebar says the team is unreachable.
    this.source.onerror = () => {
      this.lost = true
      this.set({ ...this.state, error: 'unreachable' })
    }
  }

  /** Re-read once (after a change the person made), without waiting for the push. */
  async refresh(): Promise<void> {
    try {
      this.accept(await callApi('GET', '/team'))
    } catch (error) {
      this.set({ ...this.state, error: errorText(error) })
    }
  }

  close(): void {
    this.source?.close()
    this.source = undefined
  }
}

/**
 * The opt-in browser notification "something new waits for you": off until the person turns it on
 * (the browser asks for permission then), remembered in this origin's `localStorage`, and shown
 * only when the count of tasks waiting for the person grows while the page is open.
 * Deliberately narrow: no content of a task is put in a notification (the system keeps them).
 */

export const NOTIFY_KEY = 'bot-team:notify-tasks'

interface NotificationApi {
  permission: string
  requestPermission(): Promise<string>
  new (title: string, options?: { body?: string; tag?: string }): unknown
}

function api(): NotificationApi | undefined {
  const n = (globalThis as { Notification?: unknown }).Notification
  return typeof n === 'function' ? (n as unknown as NotificationApi) : undefined
}

function storage(): { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void } | undefined {
  try {
    return (globalThis as { localStorage?: any }).localStorage
  } catch {
    return undefined
  }
}

export type NotifyState = 'unsupported' | 'off' | 'on' | 'denied'

/** Where the opt-in stands in this browser. */
export function notifyState(): NotifyState {
  const n = api()
  if (!n) return 'unsupported'
  if (n.permission === 'denied') return 'denied'
  try {
    return storage()?.getItem(NOTIFY_KEY) === 'on' && n.permission === 'granted' ? 'on' : 'off'
  } catch {
    return 'off'
  }
}

/** Turn the notification on (asking the browser's permission) or off; the state it is in after. */
export async function setNotify(on: boolean): Promise<NotifyState> {
  const n = api()
  if (!n) return 'unsupported'
  try {
    if (!on) {
      storage()?.removeItem(NOTIFY_KEY)
      return notifyState()
    }
    const permission = n.permission === 'granted' ? 'granted' : await n.requestPermission()
    if (permission === 'granted') storage()?.setItem(NOTIFY_KEY, 'on')
  } catch {
    // storage off or the request refused: the state says which
  }
  return notifyState()
}

/** Watches the count of waiting tasks; a rise while on shows one notification. */
export class WaitingWatch {
  private last: number | undefined
  check(count: number | undefined, words: () => { title: string; body: string }): boolean {
    if (count === undefined) return false
    const rose = this.last !== undefined && count > this.last
    this.last = count
    if (!rose || notifyState() !== 'on') return false
    try {
      const { title, body } = words()
      const N = api()!
      new N(title, { body, tag: 'bot-team-tasks' })
      return true
    } catch {
      return false
    }
  }
}

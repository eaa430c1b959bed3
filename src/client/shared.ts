/**
 * Small shared pieces of the client half: a value store React components subscribe to, the error
 * boundary every mounted component sits behind, the dialogs' Escape hook, and `h`, React's createElement.
 *
 * The boundary draws nothing (or a one-line note) when its child throws, so a rendering bug loses
 * only the plugin's own entry, never DSH Web's page.
 */
import { Component, createElement, useEffect, useSyncExternalStore, type ComponentType, type ReactNode } from 'react'

export const h = createElement

/** A value components read with `useValue`; `set` notifies them. */
export class Value<T> {
  private current: T
  private readonly listeners = new Set<() => void>()
  constructor(initial: T) {
    this.current = initial
  }
  get = (): T => this.current
  set(next: T): void {
    this.current = next
    for (const l of this.listeners) l()
  }
  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l)
    return () => {
      this.listeners.delete(l)
    }
  }
}

export function useValue<T>(value: Value<T>): T {
  return useSyncExternalStore(value.subscribe, value.get)
}

/** While `open`, Escape calls `close` (every dialog's keyboard way out). */
export function useEscape(open: boolean, close: () => void): void {
  useEffect(() => {
    if (!open) return
    const doc = (globalThis as { document?: any }).document
    const onKey = (e: { key: string }) => {
      if (e.key === 'Escape') close()
    }
    doc?.addEventListener('keydown', onKey)
    return () => doc?.removeEventListener('keydown', onKey)
  }, [open])
}

interface GuardProps {
  children?: ReactNode
  quiet?: boolean
  what: string
}

/** Error boundary: a throwing child renders as nothing (quiet) or one short note. */
export class Guard extends Component<GuardProps, { failed: boolean }> {
  constructor(props: GuardProps) {
    super(props)
    this.state = { failed: false }
  }
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }
  componentDidCatch(error: unknown): void {
    try {
      console.warn(`dsh-bot-team: ${this.props.what} failed to render`, error)
    } catch {
      // nothing to do
    }
  }
  override render(): ReactNode {
    if (!this.state.failed) return this.props.children
    return this.props.quiet ? null : h('span', { className: 'bt-note', role: 'status' }, `Bot team: ${this.props.what} is unavailable`)
  }
}

/** Components this plugin registered (so a hand-back never picks one of ours). */
const OURS = new WeakSet<object>()

export function isOurs(component: unknown): boolean {
  return (typeof component === 'function' || (typeof component === 'object' && component !== null)) && OURS.has(component as object)
}

/** `component` behind its own error boundary. */
export function guarded<P>(what: string, component: ComponentType<P>, quiet = false): ComponentType<P> {
  const wrapped = (props: P) => h(Guard, { what, quiet }, h(component, props as Record<string, unknown>))
  OURS.add(wrapped)
  return wrapped
}

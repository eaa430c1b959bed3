/**
 * DSH Web's slot registry as the client uses it, and the hand-back: for a node that is not ours, the
 * entry our replacement shadows (DSH's own component) found in `slots.entries`. Deliberately
 * registers only through `slots.inject`.
 */
import type { ComponentType } from 'react'

export interface SlotsLike {
  inject(name: string, callback: () => () => void): () => void
  register(options: Record<string, unknown>, component: ComponentType): () => void
  entries?(name: string): readonly unknown[]
}

interface EntryLike {
  component?: unknown
  key?: unknown
  priority?: unknown
  options?: { key?: unknown; priority?: unknown }
  spec?: { key?: unknown; priority?: unknown }
}

function field(e: EntryLike, name: 'key' | 'priority'): unknown {
  return e[name] ?? e.options?.[name] ?? e.spec?.[name]
}

/** The entry DSH would render in `slot` (for `key`) if ours were not registered (pure over the list). */
export function shadowedEntry(entries: readonly unknown[], isMine: (component: unknown) => boolean, key?: string): ComponentType | undefined {
  let best: { component: ComponentType; priority: number } | undefined
  for (const raw of entries) {
    if (!raw || typeof raw !== 'object') continue
    const e = raw as EntryLike
    if (isMine(e.component) || (typeof e.component !== 'function' && typeof e.component !== 'object')) continue
    if (key !== undefined && field(e, 'key') !== key) continue
    const priority = Number(field(e, 'priority') ?? 0)
    if (!best || priority < best.priority) best = { component: e.component as ComponentType, priority }
  }
  return best?.component
}

/**
 * DSH Web's slot registry as the client half uses it, and the hand-back: a replacement registered
 * at a lower priority shadows DSH's own entry for the whole slot (or chat-node key), so for what
 * is not ours the replacement renders the entry it shadows — DSH's own component, same props —
 * found in `slots.entries(slot)`.
 *
 * Deliberately narrow: registrations go through `slots.inject` (waits until the owner declares the
 * slot; a direct register into an undeclared slot throws); nothing here touches other services.
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

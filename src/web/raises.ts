/**
 * Which HTTP changes raise a Bot's authority (pure policy): a higher permission preset, making a
 * Bot a Main Bot or a group's admin, or setting (or clearing) a Bot's working folder (it moves
 * where the Bot's Sessions may write). Such a change must come from a paired browser (`pairing.ts`); everything
 * else needs the trust fence only.
 *
 * Ranks: read-only < workspace-write < danger-full-access. A preset this module does not know (a
 * custom preset adopted from DSH Web's selector, a typo the roster will refuse) ranks lowest, so
 * moving from an unknown preset to any known one counts as raising, and asking for an unknown one
 * never does (the roster's validation refuses it with a 400).
 *
 * Deliberately narrow: no I/O, no request parsing beyond reading the one field; it does not decide
 * who may change a Bot at all (`roster/authority.ts`) and does not validate the rest of a body.
 */
import { DEFAULT_PERMISSION_PRESET, PERMISSION_PRESETS } from '../roster/bot-fields.ts'

export const PRESET_RANK: Readonly<Record<string, number>> = Object.freeze({ 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 })

/** The rank of a preset name; unknown (or not a string) ranks lowest. */
export function presetRank(preset: unknown): number {
  return typeof preset === 'string' && (PERMISSION_PRESETS as readonly string[]).includes(preset) ? PRESET_RANK[preset]! : -1
}

/** True when going from `current` to `requested` raises the preset. */
export function raisesPreset(current: unknown, requested: unknown): boolean {
  return presetRank(requested) > presetRank(current)
}

function ownField(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' && Object.hasOwn(body, key) ? (body as Record<string, unknown>)[key] : undefined
}

/** A change body (PATCH) raises authority when it asks for a preset above the Bot's current one. */
export function updateRaises(currentPreset: unknown, body: unknown): boolean {
  const requested = ownField(body, 'permissionPreset')
  return requested !== undefined && raisesPreset(currentPreset, requested)
}

/** A create body raises authority when it asks for a preset above the default a new Bot gets. */
export function createRaises(body: unknown): boolean {
  const requested = ownField(body, 'permissionPreset')
  return requested !== undefined && raisesPreset(DEFAULT_PERMISSION_PRESET, requested)
}

/**
 * A group body (create: `currentAdmin` undefined; change: the group's admin) raises a Bot's authority
 * when it may make a Bot the group's admin that is not its admin now: an admin may change and post
 * to its group and write team memory (`roster/authority.ts`). Fails closed: only no `admin`, `null`,
 * "none" (as the rooms service reads it: trimmed, any case) or exactly the current admin (`botId`
 * resolves the trimmed name or id as the service does) are not raises; an admin it cannot resolve,
 * or not a string, counts as one (the service would refuse it, but pairing is asked first).
 */
export function adminRaises(currentAdmin: string | undefined, body: unknown, botId: (ref: string) => string | undefined): boolean {
  const requested = ownField(body, 'admin')
  if (requested === undefined || requested === null) return false
  if (typeof requested !== 'string') return true
  const ref = requested.trim()
  if (ref.toLowerCase() === 'none') return false
  const id = botId(ref)
  return id === undefined || id !== currentAdmin
}

/** A create or change body that may make a Bot that is not a Main Bot now one (fails closed: any `main` but false or absent). */
export function mainRaises(currentlyMain: boolean, body: unknown): boolean {
  const requested = ownField(body, 'main')
  return !currentlyMain && requested !== undefined && requested !== false
}

/** A create or change body that sets (or clears, `null`) a Bot's working folder. */
export function setsWorkFolder(body: unknown): boolean {
  return ownField(body, 'workFolder') !== undefined
}

/**
 * Validation that pays only for what a transaction changed: an entity that is the same frozen object
 * as one that passed is known valid, new ones are parsed, the cross-entity rules run every time — the
 * same verdict as `stateSchema` (a unit test compares them). Deliberately no freezing, no serialising.
 */
import { z } from 'zod'
import { type TeamState, botSchema, deliverySchema, groupSchema, stateSchema, teamInvariantIssues } from './schema.ts'
import { formatIssues } from '../core/zod-issues.ts'

const STATE_WORDING = { root: '(root)', max: 5 }

type Kind = 'bots' | 'groups' | 'deliveries'
const ENTITY: Record<Kind, z.ZodType> = { bots: botSchema, groups: groupSchema, deliveries: deliverySchema }
const RECORDS = ['bots', 'groups'] as const
const ARRAYS = ['deliveries'] as const
const shape = stateSchema.shape
/** Every top-level field except the entity containers, parsed whole on every save. */
const smallFields = z.object({
  version: shape.version,
  revision: shape.revision,
  writtenBy: shape.writtenBy,
  preferences: shape.preferences,
  nextIds: shape.nextIds,
  budgets: shape.budgets,
  usage: shape.usage,
  // Issue 16 (operations): optional, small.
  paused: shape.paused,
  schedules: shape.schedules,
  // Team settings: the person's limit overrides (optional, small).
  limits: shape.limits,
  // Settings held for the person's confirmation (v4; optional, small).
  held: shape.held,
  // Questions of a v5 file until the task ledger takes them (v6; optional, at most 500).
  ledgerImport: shape.ledgerImport,
})
const recordKey = z.string().min(1).max(200)
const json = z.json()
const KNOWN_FIELDS = new Set(Object.keys(shape))

export class KnownValid {
  private sets: Record<Kind, WeakSet<object>> = { bots: new WeakSet(), groups: new WeakSet(), deliveries: new WeakSet() }
  /** Whole containers (the `bots` record, the `deliveries` array, …) whose keys and entries all passed. */
  private containers: Record<Kind, WeakSet<object>> = { bots: new WeakSet(), groups: new WeakSet(), deliveries: new WeakSet() }

  has(kind: Kind, value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.isFrozen(value) && this.sets[kind].has(value)
  }

  hasContainer(kind: Kind, value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.isFrozen(value) && this.containers[kind].has(value)
  }

  /** Record that every entity of `state` (deep-frozen, validated whole) passed its schema. */
  rememberAll(state: Readonly<TeamState>) {
    for (const kind of RECORDS) {
      for (const v of Object.values(state[kind])) this.sets[kind].add(v)
      this.containers[kind].add(state[kind])
    }
    for (const kind of ARRAYS) {
      for (const v of state[kind]) this.sets[kind].add(v)
      this.containers[kind].add(state[kind])
    }
  }

  /** Record what `validateState` passed, once the caller has deep-frozen `state`. */
  remember(state: Readonly<TeamState>, fresh: ReadonlyArray<[Kind, object]>) {
    for (const [kind, value] of fresh) this.sets[kind].add(value)
    for (const kind of [...RECORDS, ...ARRAYS]) this.containers[kind].add(state[kind])
  }
}

type Issue = { path: Array<PropertyKey>; message: string }
export type Validated = { ok: true; state: TeamState; fresh: Array<[Kind, object]> } | { ok: false; problem: string }

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Validate `candidate` as a whole team. `ok` carries the state to publish: unchanged entities are
 * the same objects, changed ones are their parsed copies (listed in `fresh` so the caller can
 * remember them once frozen).
 */
export function validateState(candidate: unknown, known: KnownValid): Validated {
  if (!isPlainRecord(candidate)) {
    const parsed = stateSchema.safeParse(candidate)
    return { ok: false, problem: parsed.success ? 'the team state is not an object' : formatIssues(parsed.error, STATE_WORDING) }
  }
  const issues: Issue[] = []
  const fresh: Array<[Kind, object]> = []
  const small = smallFields.safeParse(candidate)
  if (!small.success) issues.push(...small.error.issues)
  const out: Record<string, unknown> = small.success ? { ...small.data } : {}

  const entity = (kind: Kind, value: unknown, path: PropertyKey[]) => {
    if (known.has(kind, value)) return value
    const parsed = ENTITY[kind].safeParse(value)
    if (!parsed.success) {
      for (const i of parsed.error.issues) issues.push({ path: [...path, ...i.path], message: i.message })
      return undefined
    }
    fresh.push([kind, parsed.data as object])
    return parsed.data
  }
  for (const kind of RECORDS) {
    const value = candidate[kind]
    if (known.hasContainer(kind, value)) {
      out[kind] = value
      continue
    }
    if (!isPlainRecord(value)) {
      issues.push({ path: [kind], message: 'expected an object' })
      continue
    }
    const record: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const k = recordKey.safeParse(key)
      if (!k.success) for (const i of k.error.issues) issues.push({ path: [kind, key], message: `invalid key: ${i.message}` })
      record[key] = entity(kind, value[key], [kind, key])
    }
    out[kind] = record
  }
  for (const kind of ARRAYS) {
    const value = candidate[kind]
    if (known.hasContainer(kind, value)) {
      out[kind] = value
      continue
    }
    if (!Array.isArray(value)) {
      issues.push({ path: [kind], message: 'expected an array' })
      continue
    }
    out[kind] = Array.from(value, (v, i) => entity(kind, v, [kind, i]))
  }
  for (const key of Object.keys(candidate)) {
    if (KNOWN_FIELDS.has(key)) continue
    if (!json.safeParse(candidate[key]).success) issues.push({ path: [key], message: 'a field this build does not know must hold JSON' })
    else out[key] = candidate[key]
  }
  if (issues.length === 0) {
    for (const i of teamInvariantIssues(out as TeamState)) issues.push(i)
  }
  if (issues.length) return { ok: false, problem: formatIssues({ issues }, STATE_WORDING) }
  // Known fields in schema order, then the unknown ones, as stateSchema's output has them.
  const state: Record<string, unknown> = {}
  for (const key of KNOWN_FIELDS) if (key in out) state[key] = out[key]
  for (const key of Object.keys(out)) if (!KNOWN_FIELDS.has(key)) state[key] = out[key]
  return { ok: true, state: state as TeamState, fresh }
}

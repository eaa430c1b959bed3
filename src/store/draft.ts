/**
 * Copy-on-write drafts: a transaction works on a proxy over the frozen state; the first write to an
 * object copies that one object, and `finish` returns plain data in which every unwritten object is
 * the very same frozen one (the store relies on that identity). Plain JSON data only; writing after
 * `finish` throws.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: a structural draft over arbitrary JSON: proxies read and write any field.

const DRAFT = Symbol('botStore.draft')

interface DraftState {
  base: any
  copy: any | null
  /** Child drafts handed out for frozen values, by property. */
  children: Map<PropertyKey, any>
  finished: boolean
  result?: any
}

interface Scope {
  states: DraftState[]
  done: boolean
}

type Obj = Record<PropertyKey, any>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null

function stateOf(value: unknown): DraftState | undefined {
  return isObject(value) ? (value as any)[DRAFT] : undefined
}

function writable(scope: Scope, st: DraftState): any {
  if (scope.done) throw new TypeError('This team-state draft belongs to a finished transaction; change the state through botStore.update().')
  st.copy ??= Array.isArray(st.base) ? st.base.slice() : { ...st.base }
  return st.copy
}

function makeDraft(scope: Scope, base: Obj): any {
  const st: DraftState = { base, copy: null, children: new Map(), finished: false }
  scope.states.push(st)
  const source = () => st.copy ?? st.base
  const read = (prop: PropertyKey) => {
    const src = source()
    const value = src[prop]
    if (!isObject(value) || !Object.isFrozen(value) || !Object.hasOwn(src, prop)) return value
    let child = st.children.get(prop)
    if (!child || child[DRAFT].base !== value) {
      child = makeDraft(scope, value)
      st.children.set(prop, child)
    }
    return child
  }
  const handler: ProxyHandler<Obj> = {
    get(_target, prop) {
      if (prop === DRAFT) return st
      return read(prop)
    },
    set(_target, prop, value) {
      const copy = writable(scope, st)
      copy[prop] = value
      if (st.children.get(prop) !== value) st.children.delete(prop)
      return true
    },
    deleteProperty(_target, prop) {
      const copy = writable(scope, st)
      delete copy[prop]
      st.children.delete(prop)
      return true
    },
    defineProperty(_target, prop, descriptor) {
      const copy = writable(scope, st)
      st.children.delete(prop)
      if (Array.isArray(copy) && prop === 'length') {
        copy.length = descriptor.value
        return true
      }
      return Reflect.defineProperty(copy, prop, { ...descriptor, configurable: true })
    },
    has(_target, prop) {
      return prop === DRAFT || prop in source()
    },
    ownKeys() {
      return Reflect.ownKeys(source())
    },
    getOwnPropertyDescriptor(_target, prop) {
      const src = source()
      const own = Reflect.getOwnPropertyDescriptor(src, prop)
      if (!own) return undefined
      if (Array.isArray(src) && prop === 'length') return { value: src.length, writable: true, enumerable: false, configurable: false }
      return { value: read(prop), writable: true, enumerable: own.enumerable, configurable: true }
    },
    setPrototypeOf() {
      return false
    },
    preventExtensions() {
      return false
    },
  }
  // An array target keeps Array.isArray(draft) true; its own `length` is reported, as required.
  return new Proxy(Array.isArray(base) ? [] : {}, handler)
}

/** Plain data for `value`: drafts resolved (unchanged ones to their frozen originals). */
function resolve(value: unknown): unknown {
  if (!isObject(value)) return value
  const st = stateOf(value)
  if (st) return resolveDraft(st)
  if (Object.isFrozen(value)) return value
  // A new object made by the transaction: it may hold drafts anywhere inside.
  for (const key of Object.keys(value)) {
    const v = value[key]
    if (isObject(v)) value[key] = resolve(v)
  }
  return value
}

function resolveDraft(st: DraftState): any {
  if (st.finished) return st.result
  st.finished = true
  const base = st.base
  let out: any
  if (st.copy === null) {
    // Never written itself; a child may have been.
    out = base
    for (const [prop, child] of st.children) {
      const cst = child[DRAFT] as DraftState
      if (base[prop] !== cst.base) continue
      const r = resolveDraft(cst)
      if (r === cst.base) continue
      if (out === base) out = Array.isArray(base) ? base.slice() : { ...base }
      out[prop] = r
    }
  } else {
    out = st.copy
    for (const key of Object.keys(out)) {
      const v = out[key]
      if (!isObject(v)) continue
      const child = st.children.get(key)
      if (child && child[DRAFT].base === v) out[key] = resolveDraft(child[DRAFT])
      else out[key] = resolve(v)
    }
    if (sameShallow(out, base)) out = base
  }
  st.result = out
  return out
}

function sameShallow(a: any, b: any): boolean {
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!
    if (k !== kb[i] || a[k] !== b[k]) return false
  }
  return true
}

export interface Draft<T> {
  /** The mutable view the transaction gets. */
  readonly draft: T
  /**
   * Plain data for what the transaction produced: `result` when it returned one, else the draft.
   * Ends the draft: later writes through it throw.
   */
  finish(result?: unknown): unknown
}

/** A copy-on-write draft of `base`, which must be deep-frozen plain JSON data. */
export function createDraft<T extends object>(base: T): Draft<T> {
  const scope: Scope = { states: [], done: false }
  const draft = makeDraft(scope, base as Obj) as T
  return {
    draft,
    finish(result) {
      const out = resolve(result === undefined ? draft : result)
      scope.done = true
      return out
    },
  }
}

export function isDraft(value: unknown): boolean {
  return stateOf(value) !== undefined
}

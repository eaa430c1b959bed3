/**
 * The bytes of `bot/state.json` — one entity per line, reusing the text of every entity a transaction
 * did not change — and their durable atomic write. Deliberately no validation, locking or revisions,
 * and free of zod and Cordis (the crash test's child uses this same path).
 */
import { writePrivateFile } from '../core/private-file.ts'

/** The fields whose entries are written one per line. */
const PER_LINE = new Set(['bots', 'groups', 'deliveries', 'ledgerImport'])

/** Text of one entity, from the cache when the (frozen) object was written before. */
function entityText(value: unknown, cache: WeakMap<object, string> | undefined): string {
  if (!cache || typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value) ?? 'null'
  let text = cache.get(value)
  if (text === undefined) {
    text = JSON.stringify(value)
    cache.set(value, text)
  }
  return text
}

/** A record or array written one entry per line; cached whole while the (frozen) container is unchanged. */
function blockText(value: unknown, cache: WeakMap<object, string> | undefined): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const cached = cache && Object.isFrozen(value) ? cache.get(value) : undefined
  if (cached !== undefined) return cached
  let text: string
  if (Array.isArray(value)) {
    text = value.length ? `[\n${value.map((v) => `    ${entityText(v, cache)}`).join(',\n')}\n  ]` : '[]'
  } else {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function')
    text = entries.length ? `{\n${entries.map(([k, v]) => `    ${JSON.stringify(k)}: ${entityText(v, cache)}`).join(',\n')}\n  }` : '{}'
  }
  if (cache && Object.isFrozen(value)) cache.set(value, text)
  return text
}

/**
 * The text of `state.json`. Parses back (`JSON.parse`) to exactly `state`. `cache` may be any
 * WeakMap the caller keeps across saves; only frozen entities are cached.
 */
export function serializeState(state: object, cache?: WeakMap<object, string>): string {
  const lines: string[] = []
  for (const [key, value] of Object.entries(state)) {
    if (value === undefined || typeof value === 'function') continue
    const text = PER_LINE.has(key) ? blockText(value, cache) : JSON.stringify(value)
    lines.push(`  ${JSON.stringify(key)}: ${text}`)
  }
  return `{\n${lines.join(',\n')}\n}\n`
}

export async function writeStateFile(file: string, text: string): Promise<void> {
  await writePrivateFile(file, text)
}

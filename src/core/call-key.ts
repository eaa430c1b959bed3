/**
 * The key of one tool call for a one-shot grant (pure): sha-256 of the tool's name and its
 * arguments as canonical JSON (keys sorted, every key kept — `__proto__` is data), without the
 * free-text arguments a model rewords freely (`description`, `justification`) at the top level,
 * so the same call asked again matches and any other argument does not. Deliberately no I/O.
 */
import { createHash } from 'node:crypto'

/** Top-level arguments left out of the key: free text that does not change what the call does. */
export const FREE_TEXT_ARGS: readonly string[] = ['description', 'justification']

/**
 * `value` as canonical JSON data: objects rebuilt on null prototypes with their own keys sorted, so
 * a key named `__proto__` stays a key (a plain object would take it as its prototype and drop it
 * from the JSON, while the approval card shows it).
 */
function canonical(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => canonical(v, depth + 1))
  const out = Object.create(null) as Record<string, unknown>
  for (const k of Object.keys(value as object).sort()) out[k] = canonical((value as Record<string, unknown>)[k], depth + 1)
  return out
}

/** The grant key of `tool` called with `args`. */
export function callKey(tool: string, args: unknown): string {
  let rest = args
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const copy = Object.create(null) as Record<string, unknown>
    for (const k of Object.keys(args)) if (!FREE_TEXT_ARGS.includes(k)) copy[k] = (args as Record<string, unknown>)[k]
    rest = copy
  }
  return createHash('sha256')
    .update(JSON.stringify([tool, canonical(rest) ?? null]))
    .digest('hex')
}

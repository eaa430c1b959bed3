/**
 * Secret names and values (pure): `secretName` (`gh-token`, `$GH_TOKEN` … → `GH_TOKEN`), `envVar`
 * (`DSH_SECRET_<NAME>`), `secretValue` (4–16,384 characters); a refusal never quotes the value.
 * Deliberately does not store, scope or mask.
 */

export const NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/
export const ENV_PREFIX = 'DSH_SECRET_'
export const VALUE_MIN = 4
export const VALUE_MAX = 16_384
export const PURPOSE_MAX = 300

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string }

/** Normalise a secret name (see the module header); a refusal names the rule, never guesses. */
export function secretName(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'the secret name must be text, e.g. GH_TOKEN' }
  let name = raw.trim()
  if (name.length > 200) return { ok: false, problem: 'the secret name is too long (at most 64 characters, e.g. GH_TOKEN)' }
  name = name
    .replace(/^\$env:/i, '')
    .replace(/^\$\{?/, '')
    .replace(/\}$/, '')
  name = name.replace(/[\s-]+/g, '_').toUpperCase()
  if (name.startsWith(ENV_PREFIX)) name = name.slice(ENV_PREFIX.length)
  if (!NAME_PATTERN.test(name)) {
    return {
      ok: false,
      problem: `"${raw.slice(0, 64)}" is not a usable secret name: use letters, digits and underscores, starting with a letter, at most 64 characters (e.g. GH_TOKEN)`,
    }
  }
  return { ok: true, value: name }
}

/** The shell variable a secret reaches a Bot's shell as. */
export function envVar(name: string): string {
  return `${ENV_PREFIX}${name}`
}

/** Check a value the person entered: trimmed, 4–16,384 characters, no NUL. Never quoted back. */
export function secretValue(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'the value must be text' }
  const value = raw.trim()
  const length = [...value].length
  if (length < VALUE_MIN) return { ok: false, problem: `the value is too short (at least ${VALUE_MIN} characters)` }
  if (length > VALUE_MAX) return { ok: false, problem: `the value is too long (at most ${VALUE_MAX} characters)` }
  if (value.includes('\0')) return { ok: false, problem: 'the value contains a NUL character, which a shell variable cannot hold' }
  return { ok: true, value }
}

/** Check a purpose line (what the Bot needs the secret for): one line, 1–300 characters. */
export function secretPurpose(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'say what the secret is for, in one line' }
  const purpose = raw.replace(/\s+/g, ' ').trim()
  if (!purpose) return { ok: false, problem: 'say what the secret is for, in one line' }
  if (purpose.length > PURPOSE_MAX) return { ok: false, problem: `the purpose is too long (at most ${PURPOSE_MAX} characters)` }
  return { ok: true, value: purpose }
}

/**
 * Own-property lookups in team state records (`bots`, `groups`, `memberSessions`, …).
 *
 * Ids reach the services from models and HTTP requests; a plain `record[id]` with `id =
 * 'constructor'` or `'__proto__'` returns a function or the prototype instead of "no such Bot".
 * Every lookup by an untrusted key goes through `own`. Deliberately tiny: no I/O, no validation.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

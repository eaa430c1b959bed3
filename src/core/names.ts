/**
 * Names — the one way the team compares the names of Bots and groups.
 *
 * Owns `normaliseName` (the stored form: trimmed, NFC, inner whitespace runs collapsed to one
 * space) and `nameKey` (the comparison key: NFKC, then case-folded), so 'ADA', 'ada' and
 * full-width 'ａｄａ' are the same name and 'Straße' equals 'STRASSE' — wherever a name is looked
 * up: Bot and group names, group members, `@mentions`, delivery targets, uniqueness checks.
 *
 * Also `byRef`, the one lookup of a Bot or group by what a person or a model calls it: its id, else
 * its name by key. Deliberately narrow: pure functions; what a valid name is lives in the field rules
 * (`roster/bot-fields.ts`, `rooms/group-fields.ts`).
 */

/** The stored form of a name: trimmed, NFC, inner whitespace runs collapsed to one space. */
export function normaliseName(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/gu, ' ')
}

/** The comparison key of a name: two names are the same exactly when their keys are equal. */
export function nameKey(name: string): string {
  return normaliseName(name).normalize('NFKC').toUpperCase().toLowerCase()
}

/** The entry a reference names: the one whose id is `ref` (trimmed), else the one whose name has its key. */
export function byRef<T extends { id: string; name: string }>(entries: Iterable<T>, ref: string): T | undefined {
  const id = String(ref ?? '').trim()
  const key = nameKey(String(ref ?? ''))
  let named: T | undefined
  for (const e of entries) {
    if (e.id === id) return e
    if (named === undefined && nameKey(e.name) === key) named = e
  }
  return named
}

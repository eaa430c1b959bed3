/**
 * Names — the one way the team compares the names of Bots and groups.
 *
 * Owns `normaliseName` (the stored form: trimmed, NFC, inner whitespace runs collapsed to one
 * space) and `nameKey` (the comparison key: NFKC, then case-folded), so 'ADA', 'ada' and
 * full-width 'ａｄａ' are the same name and 'Straße' equals 'STRASSE' — wherever a name is looked
 * up: Bot and group names, group members, `@mentions`, delivery targets, uniqueness checks.
 *
 * Deliberately narrow: pure string functions; what a valid name is lives in the field rules
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

/**
 * The one way a zod failure is worded: `path: message` per issue, joined by "; ", an unknown field
 * named on its own (`field: is not a field here`), the whole input called `root`. Tools, routes,
 * config and the state file all word their refusals with it (pure).
 */

/** A zod issue, or one built the same way (a path and a message). */
export interface Issue {
  path: readonly PropertyKey[]
  message: string
  code?: string
  keys?: readonly string[]
}

export interface IssueWording {
  /** What the path-less issue is about ("input", "task", "(root)"). */
  root?: string
  /** Issues shown; the rest are counted. */
  max?: number
}

/** One readable line per issue, joined by "; ". */
export function formatIssues(error: { issues: readonly Issue[] }, { root = 'input', max = 8 }: IssueWording = {}): string {
  const lines: string[] = []
  for (const i of error.issues) {
    const at = i.path.map(String)
    if (i.code === 'unrecognized_keys' && i.keys) {
      const said = i.message.startsWith('Unrecognized key') ? 'is not a field here' : i.message
      for (const key of i.keys) lines.push(`${[...at, key].join('.')}: ${said}`)
    } else lines.push(`${at.length ? at.join('.') : root}: ${i.message}`)
  }
  if (lines.length > max) return [...lines.slice(0, max), `… and ${lines.length - max} more`].join('; ')
  return lines.join('; ')
}

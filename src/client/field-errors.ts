/**
 * The service's refusal, split by field (pure): the roster answers bad Bot fields with one line of
 * `field: message` parts joined by "; " (`formatIssues`, quoted by the HTTP 400), possibly after a
 * sentence ("The Bot was not created: …"). The settings form shows each part next to its field,
 * word for word, and anything else (or the whole line, when no part names a field) above the form.
 */
export interface FieldErrors {
  fields: Record<string, string>
  general?: string
}

export function fieldErrors(message: string, known: readonly string[]): FieldErrors {
  const fields: Record<string, string> = {}
  const rest: string[] = []
  for (const part of message.split('; ')) {
    const m = /(?:^|: )([A-Za-z][\w.]*): (.+)$/s.exec(part)
    const field = m?.[1]?.split('.')[0]
    if (m && field && known.includes(field)) fields[field] = fields[field] ? `${fields[field]}; ${m[2]}` : m[2]!
    else if (part.trim()) rest.push(part)
  }
  if (Object.keys(fields).length === 0) return { fields, general: message }
  return rest.length ? { fields, general: rest.join('; ') } : { fields }
}

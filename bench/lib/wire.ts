// What a request costs on the wire, counted one way for every bench that reads the scripted
// server's bodies: JSON characters of the system prompt, of the tool list, and of the other
// messages (the OpenAI-compatible body DSH's deepseek provider sends).
// Deliberately narrow: counting only; which request to count is the bench's business.

export interface WireChars {
  system: number
  tools: number
  messages: number
  total: number
}

/** JSON characters of a chat-completions body's system message(s), tools and other messages. */
export function wireChars(body: Record<string, unknown>): WireChars {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown }[]) : []
  const system = messages.filter((m) => m.role === 'system')
  const rest = messages.filter((m) => m.role !== 'system')
  const c = {
    system: JSON.stringify(system).length,
    tools: JSON.stringify(body.tools ?? []).length,
    messages: JSON.stringify(rest).length,
  }
  return { ...c, total: c.system + c.tools + c.messages }
}

/**
 * Characters of the team section in a Bot's system prompt: the blocks (DSH joins sections with a
 * blank line) that the plain chat's prompt does not have, leaving out DSH's own working-directory
 * line (it names the Bot's folder) and the memory section (`bench memory` counts that).
 */
export function teamSectionChars(system: string, plain: string): number {
  const known = new Set(plain.split('\n\n'))
  let inMemory = false
  let chars = 0
  for (const block of system.split('\n\n')) {
    if (block.startsWith('# Your long-term memory')) inMemory = true
    else if (inMemory && !block.startsWith('## ')) inMemory = false
    if (inMemory || known.has(block) || block.startsWith('You are a coding agent powered by')) continue
    chars += block.length + 2
  }
  return chars
}

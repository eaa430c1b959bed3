// Prompt-cache friendliness, measured the one way the benches share: between deliberate rewrites,
// each request of a Session part must start with the whole previous request — the same system
// text and tool list, and the previous request's messages, in order, as the first entries of the
// next one. DSH's runtime-context snapshot message (one line after the prompt, rewritten per
// step by design) is left out on both sides.
import type { RecordedRequest } from '../../scripts/scripted-model/format.ts'

/** A request's conversation as comparable entries (role, text, tool calls), runtime context left out. */
function history(req: RecordedRequest): string[] {
  return req.messages.filter((m) => !m.runtimeContext).map((m) => JSON.stringify([m.role, m.text, m.toolCalls?.map((c) => [c.name, c.arguments]) ?? []]))
}

/** Does `next` start with the whole of `prev` (system, tools, messages)? */
export function extendsPrevious(prev: RecordedRequest, next: RecordedRequest): boolean {
  if (prev.system !== next.system || JSON.stringify(prev.tools) !== JSON.stringify(next.tools)) return false
  const a = history(prev)
  const b = history(next)
  return b.length > a.length && a.every((m, j) => b[j] === m)
}

/** Over consecutive requests of one Session part: how many pairs, and how many start with the whole previous one. */
export function prefixReuse(requests: readonly RecordedRequest[]): { pairs: number; identical: number } {
  let identical = 0
  for (let i = 1; i < requests.length; i++) if (extendsPrevious(requests[i - 1]!, requests[i]!)) identical++
  return { pairs: Math.max(0, requests.length - 1), identical }
}

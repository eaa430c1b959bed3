/**
 * Topic names (pure): what a topic file may be called. A topic is `topics/<name>.md` inside a
 * memory scope, so the name must be path-safe: letters (any script), digits, `-` and `_`, at most
 * 48 characters, starting with a letter or digit — no `..`, no separators, no dots at all.
 * Spaces become `-` and names are lowercased, so "Build Notes" and "build-notes" are one topic.
 * Deliberately narrow: no disk access; the service joins the path.
 */

const TOPIC = /^[\p{L}\p{N}][\p{L}\p{N}_-]{0,47}$/u

export type TopicName = { ok: true; name: string } | { ok: false; problem: string }

export function topicName(raw: string): TopicName {
  const name = raw.trim().toLowerCase().replace(/\s+/g, '-')
  if (TOPIC.test(name)) return { ok: true, name }
  return {
    ok: false,
    problem: `"${raw.slice(0, 60)}" is not a usable topic name: use letters, digits, "-" or "_" (at most 48, starting with a letter or digit; no "/", "\\", "." or "..").`,
  }
}

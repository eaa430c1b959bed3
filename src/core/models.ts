/**
 * Model references — `provider/model` strings as the team stores them, and the route they name.
 *
 * Deliberately narrow: parsing only (pure); whether a model exists is DSH's model catalogue's
 * business. Shared by the roster (routing a Bot's steps) and the Session opener (in-process hosts).
 */
export interface ModelRoute {
  provider: string
  model: string
}

/** `provider/model` → route; the model part may itself contain slashes. */
export function parseModel(spec: string | undefined): ModelRoute | undefined {
  if (!spec) return undefined
  const at = spec.indexOf('/')
  if (at <= 0 || at === spec.length - 1) return undefined
  return { provider: spec.slice(0, at), model: spec.slice(at + 1) }
}

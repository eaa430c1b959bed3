/**
 * Tagging the plugin's own side calls (direct `ctx.llm.stream` calls: memory review, context
 * steward, handoff note) so the usage ledger records them under their purpose and Bot.
 *
 * DSH's `GenerateOptions.purpose` accepts only `compaction` and `session-title`, and a side call is
 * in no Session log, so the caller marks the very options object it passes to `ctx.llm.stream`;
 * the ledger's `llm/stream` listener (which DSH hands that same object) reads the mark. A WeakMap:
 * nothing is added to the request the provider sees and nothing outlives the call.
 *
 * Use: `ctx.llm.stream(sideCall({ provider, model, system, messages }, { purpose: 'memory-review', bot }))`.
 * Deliberately does not: record anything itself (the ledger does, if it runs).
 */

export interface SideCallTag {
  /** e.g. `memory-review`, `steward`, `handoff-note`. */
  purpose: string
  bot?: string | undefined
  group?: string | undefined
  part?: number | undefined
}

const tags = new WeakMap<object, SideCallTag>()

/** Mark `options` as one of the plugin's side calls; returns the same object. */
export function sideCall<T extends object>(options: T, tag: SideCallTag): T {
  tags.set(options, tag)
  return options
}

/** The tag of a request's options, if the plugin marked it. */
export function sideCallTag(options: object): SideCallTag | undefined {
  return tags.get(options)
}

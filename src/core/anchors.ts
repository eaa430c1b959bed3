/**
 * Anchors — how a logged message is named for a Bot: `[part N #seq · time]` in its own chat,
 * `[room #seq · time]` in a room, `[#seq · time]` in a group Session (pure). Handoff packages,
 * checkpoints and `read_own_chat` all write them here, and `parseAnchor` reads what a Bot quotes.
 * Times are UTC, so an anchor reads the same on every machine.
 */

/** `YYYY-MM-DD HH:MM`, UTC. */
export function anchorTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
}

/** The anchor of message `seq` logged at `time`; `part` is a part number, `'room'`, or absent (a group Session). */
export function anchor(m: { seq: number; time: number }, part?: number | 'room' | '?'): string {
  const where = part === undefined ? '' : part === 'room' ? 'room ' : `part ${part} `
  return `[${where}#${m.seq} · ${anchorTime(m.time)}]`
}

/** `part N #seq` or `#seq`, as a Bot quotes an anchor; undefined for anything else. */
export function parseAnchor(text: string): { part?: number; seq: number } | undefined {
  const m = /^\s*(?:part\s*(\d{1,6})\s*)?#\s*(\d{1,9})\s*$/i.exec(text)
  if (!m) return undefined
  return m[1] === undefined ? { seq: Number(m[2]) } : { part: Number(m[1]), seq: Number(m[2]) }
}

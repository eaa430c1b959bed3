/**
 * Anchors — how a logged message is named for a Bot: `[part N #seq · time]` in its own chat,
 * `[task-N #seq · time]` in its Session for task N, `[room #seq · time]` in a room, `[#seq · time]`
 * in a group Session (pure). Handoff packages, checkpoints and `read_own_chat` all write them here,
 * and `parseAnchor` reads what a Bot quotes. Times are UTC, so an anchor reads the same everywhere.
 */

/** `YYYY-MM-DD HH:MM`, UTC. */
export function anchorTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
}

/**
 * The anchor of message `seq` logged at `time`; `part` is a part number, `'room'`, or absent (a
 * group Session). A negative part is a task Session: `-N` for task N (`task-N`).
 */
export function anchor(m: { seq: number; time: number }, part?: number | 'room' | '?'): string {
  const where = part === undefined ? '' : part === 'room' ? 'room ' : typeof part === 'number' && part < 0 ? `task-${-part} ` : `part ${part} `
  return `[${where}#${m.seq} · ${anchorTime(m.time)}]`
}

/** `part N #seq`, `task-N #seq` (part `-N`) or `#seq`, as a Bot quotes an anchor; undefined for anything else. */
export function parseAnchor(text: string): { part?: number; seq: number } | undefined {
  const m = /^\s*(?:(part|task-)\s*(\d{1,9})\s*)?#\s*(\d{1,9})\s*$/i.exec(text)
  if (!m) return undefined
  if (m[2] === undefined) return { seq: Number(m[3]) }
  return { part: m[1]!.toLowerCase() === 'part' ? Number(m[2]) : -Number(m[2]), seq: Number(m[3]) }
}

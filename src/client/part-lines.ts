/**
 * The lines of an ended part of a Bot's chat or of a task Session (pure), from DSH's history events: messages and
 * answers in order, the plugin's internal turns left out, bounded in count and length.
 * Deliberately no React, no fetching.
 */
import { nodeText, teamLine } from './message-line.ts'
import { readSource, readSourceOf } from '../core/sources.ts'

export const PART_LINES_MAX = 400
export const LINE_MAX = 4000

export interface PartLine {
  /** `task`: the attempt's brief a task Session starts from. */
  who: 'person' | 'bot' | 'relay' | 'task'
  /** For a relayed message: who sent it. */
  from?: string
  text: string
}

/** The lines of a part's log (pure): DSH's history events, plain `{type, data}` or wrapped in `{event}`. */
export function partLines(events: unknown): PartLine[] {
  if (!Array.isArray(events)) return []
  const out: PartLine[] = []
  for (const raw of events) {
    const e = (raw && typeof raw === 'object' && 'event' in raw ? (raw as { event: unknown }).event : raw) as { type?: unknown; data?: any } | undefined
    if (!e || typeof e !== 'object') continue
    if (e.type === 'user/message') {
      const m = e.data?.message ?? e.data
      if (readSourceOf(m?.source, 'bootstrap', 'handoff')) continue
      // DSH's own plugin-sourced lines (the runtime-context snapshot) are not anyone's words.
      if (m?.source?.kind === 'plugin' && !readSource(m.source)) continue
      const text = nodeText(m?.content, LINE_MAX).trim()
      if (!text) continue
      if (readSourceOf(m?.source, 'task', 'person-task')) {
        out.push({ who: 'task', text })
        continue
      }
      const line = teamLine(m?.source)
      if (line?.kind === 'hidden' || (line && line.kind !== 'relay')) continue
      out.push(line?.kind === 'relay' ? { who: 'relay', from: line.from, text } : { who: 'person', text })
    } else if (e.type === 'assistant/message') {
      const text = nodeText((e.data?.message ?? e.data)?.content, LINE_MAX).trim()
      if (text) out.push({ who: 'bot', text })
    }
  }
  return out.slice(-PART_LINES_MAX)
}

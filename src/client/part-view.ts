/**
 * An ended part of a Bot's chat, read-only, inside DSH Web (DSH Web rc.8 never shows an archived
 * Session as the current chat): read from DSH's own `session.history` and drawn as lines (the
 * task board's transcripts use the same read and list).
 * Deliberately read-only; a failing or slow call is one error line.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { Translate } from './i18n.ts'
import { partLines, type PartLine } from './part-lines.ts'
import { h } from './shared.ts'
import { REQUEST_TIMEOUT_MS } from './team-client.ts'
import { errorText } from '../core/errors.ts'

/** DSH's own `session.history` of a Session (read-only): its events. */
export async function sessionHistory(sessionId: string): Promise<unknown> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS)
  try {
    const res = await fetch('/api/session.history', {
      method: 'POST',
      credentials: 'same-origin',
      signal: controller.signal,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: `bot-team-${Date.now()}`, method: 'session.history', payload: { sessionId, maxMessages: 1000 } }),
    })
    const body = (await res.json()) as { result?: { ok?: boolean; value?: { events?: unknown }; error?: { message?: string } } }
    if (!res.ok || body.result?.ok === false) throw new Error(body.result?.error?.message ?? `HTTP ${res.status}`)
    return body.result?.value?.events
  } finally {
    clearTimeout(timer)
  }
}

/** A transcript's lines as a list; `who` names each line's speaker. */
export function TranscriptList({ lines, label, who }: { lines: readonly PartLine[]; label: string; who: (l: PartLine) => string }): ReactNode {
  return h(
    'ol',
    { className: 'bt-part', 'aria-label': label },
    ...lines.map((l, i) => h('li', { key: i, 'data-who': l.who }, h('b', null, who(l)), h('span', { className: 'bt-body' }, l.text))),
  )
}

export interface PartToShow {
  botName: string
  part: number
  sessionId: string
}

export function makePartView(deps: { useT: () => Translate; useShown: () => PartToShow | undefined; close: () => void }) {
  function PartDialog(): ReactNode {
    const t = deps.useT()
    const shown = deps.useShown()
    const [lines, setLines] = useState<PartLine[] | undefined>(undefined)
    const [error, setError] = useState<string | undefined>(undefined)
    useEffect(() => {
      setLines(undefined)
      setError(undefined)
      if (!shown) return
      let live = true
      sessionHistory(shown.sessionId).then(
        (events) => {
          if (live) setLines(partLines(events))
        },
        (e: unknown) => {
          if (live) setError(errorText(e))
        },
      )
      const doc = (globalThis as { document?: any }).document
      const onKey = (e: { key: string }) => {
        if (e.key === 'Escape') deps.close()
      }
      doc?.addEventListener('keydown', onKey)
      return () => {
        live = false
        doc?.removeEventListener('keydown', onKey)
      }
    }, [shown?.sessionId])
    if (!shown) return null
    const who = (l: PartLine) => (l.who === 'bot' ? shown.botName : l.who === 'relay' ? t('messageFrom', { name: l.from ?? '?' }) : t('bots.you'))
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) deps.close()
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-part-title',
          'data-testid': 'bt-part-dialog',
          'data-session-id': shown.sessionId,
          style: { width: 'min(680px,94vw)' },
        },
        h('h2', { id: 'bt-part-title' }, t('bots.partTitle', { name: shown.botName, part: shown.part })),
        h('p', { className: 'bt-quiet bt-left' }, t('bots.partReadOnly')),
        error ? h('p', { className: 'bt-err', role: 'alert' }, error) : null,
        lines === undefined && !error ? h('span', { className: 'bt-note' }, t('loading')) : null,
        lines && lines.length === 0 ? h('span', { className: 'bt-note' }, t('bots.partEmpty')) : null,
        lines?.length ? h(TranscriptList, { lines, label: t('bots.partTitle', { name: shown.botName, part: shown.part }), who }) : null,
        h('div', { className: 'bt-actions' }, h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.close() }, t('close'))),
      ),
    )
  }

  return { PartDialog }
}

/**
 * The panels inside DSH Web: `DomPanel` mounts one plain-DOM panel (`dom.ts`) into a React
 * element, refreshes it when `refreshKey` changes (a push from the team stream), and disposes it
 * on unmount; `PanelDialog` is the dialog frame DSH Web shows it in. The same panels draw the team
 * page, so the two never differ.
 */
import { useEffect, useRef, type ReactNode } from 'react'
import type { Panel } from './dom.ts'
import { h, useEscape } from './shared.ts'

export function DomPanel({ mount, refreshKey }: { mount: (root: HTMLElement) => Panel; refreshKey?: unknown }): ReactNode {
  const root = useRef<HTMLElement | null>(null)
  const panel = useRef<Panel | undefined>(undefined)
  const first = useRef(true)
  useEffect(() => {
    if (!root.current) return
    panel.current = mount(root.current)
    return () => {
      panel.current?.dispose()
      panel.current = undefined
    }
  }, [mount])
  useEffect(() => {
    if (first.current) first.current = false
    else panel.current?.refresh()
  }, [refreshKey])
  return h('div', { ref: root })
}

/** A modal dialog around `children`: a title, Escape and a click outside close it. */
export function PanelDialog({
  id,
  title,
  closeLabel,
  close,
  children,
}: {
  id: string
  title: string
  closeLabel: string
  close: () => void
  children?: ReactNode
}): ReactNode {
  useEscape(true, close)
  return h(
    'div',
    {
      className: 'bt-dialog-back',
      onClick: (e: { target: unknown; currentTarget: unknown }) => {
        if (e.target === e.currentTarget) close()
      },
    },
    h(
      'div',
      {
        className: 'bt-dialog',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-labelledby': `${id}-title`,
        'data-testid': id,
        style: { width: 'min(640px,94vw)' },
      },
      h('h2', { id: `${id}-title` }, title),
      children,
      h('div', { className: 'bt-actions' }, h('button', { type: 'button', className: 'bt-btn', onClick: close }, closeLabel)),
    ),
  )
}

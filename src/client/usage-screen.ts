/**
 * The usage screen inside DSH Web: totals by day, Bot, group, model or purpose with plain inline SVG
 * bars, today's spending against the caps and its notices; re-read on every push while open.
 * Deliberately read-only; the sums are the ledger's.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { Translate } from './i18n.ts'
import { h, useEscape } from './shared.ts'
import { callApi, type TeamState } from './team-client.ts'
import { barSegments, readUsage, usageLabel, USAGE_BYS, type UsageBy, type UsageRowView } from './usage-view.ts'
import { errorText } from '../core/errors.ts'

export interface UsageDeps {
  useT: () => Translate
  useTeam: () => TeamState
  /** Is the screen open (a hook: the dialog value)? */
  useOpen: () => boolean
  close: () => void
}

const BAR_W = 140
const fmt = (n: number) => n.toLocaleString()
const money = (n: number | undefined, currency?: string) => (n === undefined ? '' : `${n.toFixed(4)}${currency ? ` ${currency}` : ''}`)

function Bar({ row, largest, label }: { row: UsageRowView; largest: number; label: string }): ReactNode {
  const s = barSegments(row, largest)
  const w1 = s.input * BAR_W
  const w2 = s.cached * BAR_W
  const w3 = s.output * BAR_W
  return h(
    'svg',
    { width: BAR_W, height: 10, role: 'img', 'aria-label': label, className: 'bt-bar' },
    h('rect', { x: 0, y: 0, width: w1, height: 10, fill: '#3b5bdb' }),
    h('rect', { x: w1, y: 0, width: w2, height: 10, fill: '#74c0fc' }),
    h('rect', { x: w1 + w2, y: 0, width: w3, height: 10, fill: '#2b8a3e' }),
  )
}

export function makeUsageScreen(deps: UsageDeps) {
  function UsageDialog(): ReactNode {
    const t = deps.useT()
    const team = deps.useTeam()
    const open = deps.useOpen()
    const [by, setBy] = useState<UsageBy>('bot')
    const [data, setData] = useState<{ rows: UsageRowView[]; currency?: string } | undefined>(undefined)
    const [today, setToday] = useState<any>(undefined)
    const [error, setError] = useState<string | undefined>(undefined)
    useEffect(() => {
      if (!open) return
      let live = true
      const fail = (e: unknown) => {
        if (live) setError(errorText(e))
      }
      callApi('GET', `/usage?by=${by}`).then((r) => {
        if (live) {
          setData(readUsage(r, by))
          setError(undefined)
        }
      }, fail)
      callApi('GET', '/usage/today').then(
        (r) => {
          if (live) setToday(r)
        },
        () => {},
      )
      return () => {
        live = false
      }
    }, [open, by, team.view])
    useEscape(open, deps.close)
    if (!open) return null
    const nameOf = (id: string) => (by === 'group' ? team.view?.groups.find((g) => g.id === id)?.name : team.view?.bots.find((b) => b.id === id)?.name)
    const rows = data?.rows ?? []
    const largest = Math.max(0, ...rows.map((r) => r.input + r.cached + r.output))
    const priced = rows.some((r) => r.money !== undefined)
    const capText = (spent: { tokens: number; money: number }, cap?: { tokens?: number; money?: number }) =>
      [
        `${fmt(spent.tokens)} ${t('usage.tokens')}`,
        cap?.tokens !== undefined ? `/ ${fmt(cap.tokens)}` : '',
        today?.settings?.prices ? `· ${money(spent.money, today?.settings?.currency)}` : '',
        cap?.money !== undefined ? `/ ${money(cap.money, today?.settings?.currency)}` : '',
      ]
        .filter(Boolean)
        .join(' ')
    const notices: any[] = Array.isArray(today?.notices) ? today.notices.slice(0, 50) : []
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
          'aria-labelledby': 'bt-usage-title',
          'data-testid': 'bt-usage-dialog',
          style: { width: 'min(820px,96vw)' },
        },
        h('h2', { id: 'bt-usage-title' }, t('usage')),
        today?.team
          ? h(
              'section',
              { 'aria-labelledby': 'bt-usage-today', 'data-testid': 'bt-usage-today' },
              h('h3', { id: 'bt-usage-today', className: 'bt-sec' }, t('usage.today', { day: String(today.day ?? '') })),
              h(
                'p',
                { className: today.team.reached ? 'bt-problem' : 'bt-quiet', style: { textAlign: 'left' } },
                `${t('team')}: ${capText(today.team, today.team.cap)}${today.team.reached ? ` — ${t('usage.reached')}` : ''}`,
              ),
              ...(Array.isArray(today.bots)
                ? today.bots
                    .filter((b: any) => b.cap || b.reached)
                    .slice(0, 50)
                    .map((b: any) =>
                      h(
                        'p',
                        { key: b.id, className: b.reached ? 'bt-problem' : 'bt-quiet', style: { textAlign: 'left' } },
                        `${b.name}: ${capText(b, b.cap)}${b.reached ? ` — ${t('usage.reached')}` : ''}`,
                      ),
                    )
                : []),
              notices.length
                ? h(
                    'ul',
                    { 'data-testid': 'bt-usage-notices', style: { margin: '4px 0', paddingLeft: '18px' } },
                    ...notices.map((n, i) => h('li', { key: i }, String(n.text))),
                  )
                : null,
            )
          : null,
        h(
          'div',
          { role: 'group', 'aria-label': t('usage.by'), style: { display: 'flex', gap: '6px', margin: '8px 0' } },
          ...USAGE_BYS.map((k) =>
            h(
              'button',
              {
                type: 'button',
                key: k,
                className: `bt-btn${k === by ? ' primary' : ''}`,
                'aria-pressed': k === by ? 'true' : 'false',
                'data-usage-by': k,
                onClick: () => setBy(k),
              },
              t(`usage.by.${k}`),
            ),
          ),
        ),
        error ? h('div', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-usage-error' }, error) : null,
        data && rows.length === 0 ? h('span', { className: 'bt-note' }, t('usage.none')) : null,
        rows.length
          ? h(
              'table',
              { className: 'bt-log', 'data-testid': 'bt-usage-table' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, t(`usage.by.${by}`)),
                  h('th', { scope: 'col' }, t('usage.requests')),
                  h('th', { scope: 'col' }, t('usage.input')),
                  h('th', { scope: 'col' }, t('usage.cached')),
                  h('th', { scope: 'col' }, t('usage.output')),
                  priced ? h('th', { scope: 'col' }, t('usage.money')) : null,
                  h('th', { scope: 'col' }, t('usage.share')),
                ),
              ),
              h(
                'tbody',
                null,
                ...rows.map((r) => {
                  const label = usageLabel(by, r.key, nameOf, t(by === 'group' ? 'usage.noGroup' : 'usage.unknown'))
                  return h(
                    'tr',
                    { key: String(r.key), 'data-usage-row': label },
                    h('td', null, label),
                    h('td', null, fmt(r.requests)),
                    h('td', null, fmt(r.input)),
                    h('td', null, fmt(r.cached)),
                    h('td', null, fmt(r.output)),
                    priced
                      ? h('td', { title: r.unpriced?.length ? `${t('usage.unpriced')}: ${r.unpriced.join(', ')}` : undefined }, money(r.money, data?.currency))
                      : null,
                    h('td', null, h(Bar, { row: r, largest, label: t('usage.bar', { input: fmt(r.input), cached: fmt(r.cached), output: fmt(r.output) }) })),
                  )
                }),
              ),
            )
          : null,
        rows.length ? h('p', { className: 'bt-quiet', style: { textAlign: 'left' } }, t('usage.legend')) : null,
        by === 'group' ? h('p', { className: 'bt-quiet', style: { textAlign: 'left' }, 'data-testid': 'bt-usage-group-note' }, t('usage.groupNote')) : null,
        h('div', { className: 'bt-actions' }, h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.close() }, t('close'))),
      ),
    )
  }
  return { UsageDialog }
}

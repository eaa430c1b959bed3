/**
 * Spending policy (pure): money from tokens and the person's prices (a model without a price costs
 * nothing known), the day's totals per Bot and team, and which daily caps are reached. Deliberately
 * holds no work, notifies nobody, persists nothing and ships no prices.
 */
import type { UsageSettings } from '../store/index.ts'
import type { UsageRow, UsageTokens } from './rows.ts'

export type Prices = NonNullable<UsageSettings['prices']>
export type DailyCap = { tokens?: number | undefined; money?: number | undefined }

/** Money for `tokens` of `provider/model` at the person's prices; undefined when it has none. */
export function costOf(prices: Prices | undefined, route: string, t: UsageTokens): number | undefined {
  const p = prices?.[route]
  if (!p) return undefined
  return (t.input * p.input + t.cached * p.cached + t.output * p.output) / 1_000_000
}

export const totalTokens = (t: UsageTokens) => t.input + t.cached + t.output

/** One day's running token sums by Bot (null: requests of no Bot) and `provider/model`. */
export class DayTotals {
  readonly day: string
  private readonly byBot = new Map<string | null, Map<string, UsageTokens>>()

  constructor(day: string) {
    this.day = day
  }

  add(row: Pick<UsageRow, 'bot' | 'provider' | 'model'> & UsageTokens): void {
    let models = this.byBot.get(row.bot)
    if (!models) {
      models = new Map()
      this.byBot.set(row.bot, models)
    }
    const route = `${row.provider}/${row.model}`
    const t = models.get(route) ?? { input: 0, cached: 0, output: 0 }
    models.set(route, { input: t.input + row.input, cached: t.cached + row.cached, output: t.output + row.output })
  }

  /** Tokens and money (priced models only) of one Bot, or of the team when `bot` is omitted. */
  spent(prices: Prices | undefined, bot?: string): { tokens: number; money: number } {
    let tokens = 0
    let money = 0
    const scopes = bot === undefined ? [...this.byBot.values()] : [this.byBot.get(bot)].filter((m) => m !== undefined)
    for (const models of scopes) {
      for (const [route, t] of models) {
        tokens += totalTokens(t)
        money += costOf(prices, route, t) ?? 0
      }
    }
    return { tokens, money }
  }

  bots(): string[] {
    return [...this.byBot.keys()].filter((b): b is string => b !== null)
  }
}

/** The cap that applies to a Bot: its own, else the one for every Bot. */
export function botCap(settings: UsageSettings | undefined, botId: string): DailyCap | undefined {
  return settings?.caps?.bots?.[botId] ?? settings?.caps?.eachBot
}

function over(spent: { tokens: number; money: number }, cap: DailyCap | undefined): 'tokens' | 'money' | undefined {
  if (!cap) return undefined
  if (cap.tokens !== undefined && spent.tokens >= cap.tokens) return 'tokens'
  if (cap.money !== undefined && spent.money >= cap.money) return 'money'
  return undefined
}

export interface CapHit {
  /** `team` or `bot:<id>`. */
  scope: string
  what: 'tokens' | 'money'
  spent: { tokens: number; money: number }
  cap: DailyCap
}

/** The team's cap if reached, then the Bot's (pure). */
export function capsReached(totals: DayTotals, settings: UsageSettings | undefined, botId: string): CapHit[] {
  const hits: CapHit[] = []
  const prices = settings?.prices
  const team = settings?.caps?.team
  if (team) {
    const spent = totals.spent(prices)
    const what = over(spent, team)
    if (what) hits.push({ scope: 'team', what, spent, cap: team })
  }
  const cap = botCap(settings, botId)
  if (cap) {
    const spent = totals.spent(prices, botId)
    const what = over(spent, cap)
    if (what) hits.push({ scope: `bot:${botId}`, what, spent, cap })
  }
  return hits
}

/**
 * What a change of the usage settings loosens (pure): a daily cap removed or raised, a price
 * removed or lowered — each lets the team spend more before a cap holds it. A new cap or price, or
 * a lower cap, tightens and is not listed. Each entry names what (`caps.team.tokens`, `prices.<model>`).
 */
export function loosenedSpending(current: UsageSettings | undefined, next: UsageSettings | undefined): string[] {
  const out: string[] = []
  const caps = (s: UsageSettings | undefined) => ({
    team: s?.caps?.team,
    eachBot: s?.caps?.eachBot,
    ...Object.fromEntries(Object.entries(s?.caps?.bots ?? {}).map(([id, cap]) => [`bots.${id}`, cap])),
  })
  const before: Record<string, DailyCap | undefined> = caps(current)
  const after: Record<string, DailyCap | undefined> = caps(next)
  for (const [scope, cap] of Object.entries(before)) {
    for (const what of ['tokens', 'money'] as const) {
      const was = cap?.[what]
      const now = after[scope]?.[what]
      if (was !== undefined && (now === undefined || now > was)) out.push(`caps.${scope}.${what}`)
    }
  }
  for (const [model, price] of Object.entries(current?.prices ?? {})) {
    const now = next?.prices?.[model]
    if (!now || now.input < price.input || now.cached < price.cached || now.output < price.output) out.push(`prices.${model}`)
  }
  return out
}

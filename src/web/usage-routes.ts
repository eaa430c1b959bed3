/**
 * The usage API under `/bot-team/api/usage`, acting as the person: sums by hour, day, Bot, model,
 * group, purpose or task, today against the caps, prices and caps (loosening one needs a paired browser),
 * a rebuild from the logs (paired, one at a time); a ledger that is off answers 503 with why.
 * Deliberately no charts.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import type { BotRoster } from '../roster/service.ts'
import { usageSettingsSchema } from '../store/index.ts'
import { VIEW_KEYS } from '../usage/ledger-db.ts'
import { TASK_ID } from '../tasks/record.ts'
import type { BotUsage } from '../usage/service.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'
import { formatIssues } from '../core/zod-issues.ts'

export const USAGE_BODY_BYTES = 64 * 1024

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
const ref = z.string().trim().min(1).max(200)
const ViewQuery = z.strictObject({
  by: z.enum(VIEW_KEYS).default('day'),
  from: day.optional(),
  to: day.optional(),
  bot: ref.optional(),
  group: ref.optional(),
  task: z.string().regex(TASK_ID, 'a task id like task-7').optional(),
})

const settingsShape = usageSettingsSchema.shape
const SettingsBody = z.strictObject({
  currency: settingsShape.currency,
  prices: settingsShape.prices,
  caps: settingsShape.caps,
})

export interface UsageGroups {
  /** A live group's id from its id or name. */
  groupId(ref: string): string | undefined
}

function viewQuery(url: URL) {
  const raw: Record<string, string> = {}
  for (const [k, v] of url.searchParams) raw[k] = v
  const parsed = ViewQuery.safeParse(raw)
  if (!parsed.success) throw new HttpError(400, formatIssues(parsed.error))
  return parsed.data
}

function botId(roster: BotRoster, ref: string): string {
  const bot = roster.find(ref)
  if (!bot) throw new HttpError(404, `No Bot named or with id "${ref}".`)
  return bot.id
}

export async function usageApi(
  { method, rest, req, url }: { method: string; rest: string[]; req: IncomingMessage; url: URL },
  usage: BotUsage,
  roster: BotRoster,
  groups: UsageGroups,
  pairing: Pairing,
): Promise<[number, unknown]> {
  const [sub, ...more] = rest
  if (more.length) throw new HttpError(404, 'no such usage route')
  const off = () => new HttpError(503, `the usage ledger is off: ${usage.status().problem?.message ?? 'no SQLite driver'}`)
  if (sub === undefined) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /usage`)
    const q = viewQuery(url)
    if (usage.status().driver === 'unavailable') throw off()
    const group = q.group === undefined ? undefined : groups.groupId(q.group)
    if (q.group !== undefined && group === undefined) throw new HttpError(404, `No group named or with id "${q.group}".`)
    return [200, usage.view(q.by, { from: q.from, to: q.to, bot: q.bot === undefined ? undefined : botId(roster, q.bot), group, task: q.task })]
  }
  if (sub === 'today') {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /usage/today`)
    return [200, { ...usage.today(), status: usage.status() }]
  }
  if (sub === 'settings') {
    if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /usage/settings`)
    const body = parseBody(SettingsBody, await readJsonBody(req, USAGE_BODY_BYTES))
    const caps = body.caps?.bots ? { ...body.caps, bots: Object.fromEntries(Object.entries(body.caps.bots).map(([k, v]) => [botId(roster, k), v])) } : body.caps
    return [200, { settings: await usage.configure({ ...body, ...(caps ? { caps } : {}) }, await pairing.person(req)) }]
  }
  if (sub === 'rebuild') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /usage/rebuild`)
    await pairing.requirePaired(req)
    if (usage.status().driver === 'unavailable') throw off()
    return [200, { rows: await usage.rebuild() }]
  }
  throw new HttpError(404, 'no such usage route')
}

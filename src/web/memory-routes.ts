/**
 * The memory API under `/bot-team/api/memory/<bot>`, acting as the person: read the Bot's and the
 * team's memory with sizes and limits, add or edit an entry, forget one — every write from a paired
 * browser (decided by the service), the same checks as the Bots' tools. Deliberately no rendering.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { BotRoster } from '../roster/service.ts'
import { parseEntries } from '../memory/format.ts'
import type { ScopeFiles } from '../memory/files.ts'
import type { BotMemory } from '../memory/service.ts'
import type { Pairing } from './pairing.ts'

export const BODY_BYTES = 8 * 1024

const topic = z.string().trim().max(60).optional()
const WriteBody = z.strictObject({
  text: z.string().trim().min(1).max(2_000),
  topic,
  team: z.boolean().optional(),
  replace: z.string().trim().min(1).max(2_000).optional(),
})
const ForgetBody = z.strictObject({ entry: z.string().trim().min(1).max(2_000), topic, team: z.boolean().optional() })

function listing(scope: 'own' | 'team', files: ScopeFiles) {
  const sources: [string | undefined, string][] = [[undefined, files.memory], ...Object.entries(files.topics)]
  return sources.flatMap(([t, text]) => parseEntries(text).map((e) => ({ scope, ...(t ? { topic: t } : {}), text: e.text, ...e.meta })))
}

function sizes(files: ScopeFiles) {
  const topics = Object.fromEntries(Object.entries(files.topics).map(([k, v]) => [k, [...v].length]))
  const memory = [...files.memory].length
  return { memory, topics, total: memory + Object.values(topics).reduce((a, b) => a + b, 0) }
}

export async function memoryApi(
  { method, ref, req }: { method: string; ref: string; req: IncomingMessage },
  roster: BotRoster,
  memory: BotMemory,
  pairing: Pairing,
): Promise<[number, unknown]> {
  const bot = roster.find(ref)
  if (!bot) throw new HttpError(404, `No Bot named or with id "${ref}". GET /bot-team/api/bots lists the team.`)
  if (method === 'GET') {
    const own = memory.files.read(`bot:${bot.id}`)
    const team = memory.files.read('team')
    return [
      200,
      {
        bot: { id: bot.id, name: bot.name },
        entries: [...listing('own', own), ...listing('team', team)],
        sizes: { own: sizes(own), team: sizes(team) },
        limits: memory.limits,
      },
    ]
  }
  if (method === 'POST') {
    const body = parseBody(WriteBody, await readJsonBody(req, BODY_BYTES))
    const message = await memory.remember(await pairing.person(req), { ...body, ...(body.team ? {} : { bot: bot.id }) })
    return [message.startsWith('Already') ? 200 : 201, { message }]
  }
  if (method === 'DELETE') {
    const body = parseBody(ForgetBody, await readJsonBody(req, BODY_BYTES))
    return [200, { message: await memory.forget(await pairing.person(req), { ...body, ...(body.team ? {} : { bot: bot.id }) }) }]
  }
  throw new HttpError(405, `${method} not allowed on /memory/${ref}`)
}

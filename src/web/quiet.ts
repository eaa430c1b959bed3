/**
 * What the pairing window asks of DSH (`QuietPort` in `pairing.ts`): is every chat quiet — no
 * agent running a turn or holding queued input, no background job running (a Bot's shell runs only
 * inside one of these) — a hold on all Bot-started work (`botPause`), and a call when any chat
 * starts a turn. Read only, except the hold; names Bots by the roster when it is up.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { QuietPort } from './pairing.ts'

const ACTIVE_JOB = new Set(['running', 'stopping'])

export function quietPort(ctx: Context): QuietPort {
  const nameOf = (sessionId: string) => {
    const owner = ctx.get('botRoster')?.ownerOf(sessionId)
    return owner ? (ctx.get('botRoster')?.bot(owner.botId)?.name ?? 'a Bot') : 'a DSH chat'
  }
  return {
    busy() {
      const agents = ctx.agents.list()
      const working = agents.filter((a) => a.status !== 'idle' || a.inbox.hasPending).map((a) => nameOf(String(a.id)))
      if (working.length) return `${[...new Set(working)].slice(0, 3).join(', ')} ${working.length === 1 ? 'is' : 'are'} working`
      const jobs = ctx.get('jobs')
      if (jobs) {
        for (const caller of [undefined, ...agents]) {
          const job = jobs.list(caller).find((j) => ACTIVE_JOB.has(j.status))
          if (job) return `a background job is running (${job.label.slice(0, 80)})`
        }
      }
      return undefined
    },
    hold() {
      return ctx.get('botPause')?.addHold(() => 'a pairing window is open (it closes within a minute)') ?? (() => {})
    },
    onTurnStart(listener) {
      return ctx.on('agent/status', ({ status }) => {
        if (status === 'running') listener()
      })
    },
  }
}

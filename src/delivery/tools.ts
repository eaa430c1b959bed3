/**
 * The delivery tools on a Bot's own-chat agent: `message_bot`, `interrupt_bot`, `stop_bot`.
 *
 * Each tool identifies its caller from the calling Session, asks the roster's authority check,
 * then the service (hop rule, send cap, outbox, DSH call) and answers in plain text. Refusals,
 * unknown targets, self-messages and deleted targets are answers ("Refused: …"), not throws.
 * Deliberately narrow: wording and arguments; no tool ever waits for the target's turn (two Bots
 * waiting on each other would deadlock) — answers come back as new messages.
 */
import { defineTool, type ToolDefinition } from '@deepseek-ai/dsh-tools'
import type { TeamAction } from '../roster/authority.ts'
import { answer, textOutput } from '../refusal.ts'
import type { Bot } from '../store/index.ts'
import type { BotDelivery } from './service.ts'

const text = textOutput

const SELF_CONTAINED = 'The receiver cannot see your chat or this conversation: write a self-contained message (what you need, the facts it needs, what to send back).'

type Exec = { agent?: { id: unknown } | undefined }

/** Resolve caller and target and run the authority check; a refusal is returned as a string. */
function resolve(delivery: BotDelivery, exec: Exec, action: TeamAction, ref: string): { caller: Bot; target: Bot; sessionId: string } | string {
  const roster = delivery.roster
  const sessionId = exec.agent ? String(exec.agent.id) : undefined
  const caller = roster.callerOf(sessionId)
  const callerBot = caller.botId ? roster.bot(caller.botId) : undefined
  if (!sessionId || !callerBot) return 'Refused: only a Bot of the team can use this tool.'
  const target = roster.find(String(ref ?? '').trim())
  if (!target) {
    const gone = Object.values(roster.state.bots).find((b) => b.deleted && (b.id === ref || b.name.toLowerCase() === String(ref).toLowerCase()))
    return gone
      ? `Refused: Bot ${gone.name} was deleted; nothing was sent. Call list_bots to see the team.`
      : `Refused: there is no Bot named or with id "${ref}". Call list_bots to see the team.`
  }
  const verdict = roster.check(caller, action, { botId: target.id })
  if (!verdict.allowed) return `Refused: ${verdict.reason}`
  return { caller: callerBot, target, sessionId }
}

export function deliveryTools(delivery: BotDelivery): ToolDefinition[] {
  return [
    defineTool({
      name: 'message_bot',
      description: `Send a message to another Bot of the team. It is queued after that Bot's current turn (or starts a turn if it is idle); this tool does not wait for it. ${SELF_CONTAINED} With reply_to "me" (default) its final answer comes back to you later as a new message; with "user" it answers the user in its own chat and nothing comes back.`,
      parameters: {
        to: { type: 'string', required: true, description: 'The Bot, by name or id (see list_bots).' },
        message: { type: 'string', required: true, description: 'The self-contained message.' },
        reply_to: { type: 'string', enum: ['me', 'user'], description: 'Where the answer goes: "me" (default) or "user".' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const r = resolve(delivery, exec, 'message_bot', args.to)
          if (typeof r === 'string') return r
          if (!String(args.message ?? '').trim()) return 'Refused: the message is empty; nothing was sent.'
          const replyMode = args.reply_to === 'user' ? 'user' : 'sender'
          const { delivery: d, targetBusy } = await delivery.sendFromTurn(r.sessionId, r.caller, r.target, 'message', args.message, replyMode)
          const when = targetBusy ? `${r.target.name} is busy; it will read it after its current turn.` : `${r.target.name} was idle; the message started its turn.`
          const back = replyMode === 'sender' ? `Its answer will come to you as a new message later; do not wait for it in this turn.` : `${r.target.name} will answer the user in its own chat; nothing comes back to you.`
          return `Sent to ${r.target.name} (${d.id}, hop ${d.hop}). ${when} ${back}`
        })
      },
    }),
    defineTool({
      name: 'interrupt_bot',
      description: `Main Bots only: put a message into another Bot's CURRENT turn; it reads it at its next step (or it starts a turn if idle). Use for corrections that cannot wait; otherwise use message_bot. ${SELF_CONTAINED} Nothing is sent back automatically.`,
      parameters: {
        to: { type: 'string', required: true, description: 'The Bot, by name or id.' },
        message: { type: 'string', required: true, description: 'The self-contained message.' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const r = resolve(delivery, exec, 'interrupt_bot', args.to)
          if (typeof r === 'string') return r
          if (!String(args.message ?? '').trim()) return 'Refused: the message is empty; nothing was sent.'
          const { delivery: d, targetBusy } = await delivery.sendFromTurn(r.sessionId, r.caller, r.target, 'interrupt', args.message)
          return targetBusy
            ? `Interrupted ${r.target.name} (${d.id}, hop ${d.hop}): it reads your message at its next step, inside its current turn.`
            : `${r.target.name} was idle; your message (${d.id}, hop ${d.hop}) started its turn.`
        })
      },
    }),
    defineTool({
      name: 'stop_bot',
      description: 'Main Bots only, and only when the user asks or a Bot is clearly doing harm or wasting work: end another Bot\'s current turn now. Bot messages queued for it are discarded and their senders told; the user\'s own queued prompts are kept. Its next turn tells it that you stopped it and why.',
      parameters: {
        to: { type: 'string', required: true, description: 'The Bot, by name or id.' },
        reason: { type: 'string', required: true, description: 'Why, in a sentence (the Bot is told).' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const r = resolve(delivery, exec, 'stop_bot', args.to)
          if (typeof r === 'string') return r
          const { hop } = delivery.turnOf(r.sessionId)
          const result = await delivery.stop({ id: r.caller.id, name: r.caller.name }, hop, r.target, String(args.reason ?? '').trim() || 'no reason given', r.sessionId)
          if (!result.stopped) return `${r.target.name} was not working; nothing was stopped.`
          const parts = [`Stopped ${r.target.name}'s turn.`]
          parts.push(result.discarded ? `${result.discarded} queued Bot message(s) were discarded and their senders told.` : 'No Bot messages were queued for it.')
          if (result.keptUserPrompts) parts.push(`${result.keptUserPrompts} prompt(s) the user had queued are kept.`)
          parts.push(`Its next turn tells it that you stopped it and why.`)
          return parts.join(' ')
        })
      },
    }),
  ]
}

/**
 * The delivery tools on a Bot's own-chat agent: `message_bot`, `interrupt_bot`, `stop_bot`.
 *
 * Thin adapters: each tool passes the calling Session and its arguments to the service, which
 * identifies the Bot and checks everything (authority, hop limit, send cap, work budget, sizes),
 * and answers in plain text. Refusals, unknown targets, self-messages and deleted targets are
 * answers ("Refused: …"), not throws.
 * Deliberately narrow: wording and arguments; no tool ever waits for the target's turn (two Bots
 * waiting on each other would deadlock) — answers come back as new messages.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import { requesterOf as from } from '../core/caller.ts'
import type { BotDelivery } from './service.ts'

const text = textOutput

const SELF_CONTAINED =
  'The receiver cannot see your chat or this conversation: write a self-contained message (what you need, the facts it needs, what to send back).'

/** All the tools may use of the service (the type keeps them from reaching past it). */
export type DeliveryToolHost = Pick<BotDelivery, 'send' | 'stop' | 'nameOf'>

export function deliveryTools(delivery: DeliveryToolHost): ToolDefinition[] {
  return [
    defineTeamTool({
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
          const replyMode = args.reply_to === 'user' ? 'user' : 'sender'
          const { delivery: d, targetBusy } = await delivery.send(from(exec), { to: args.to, kind: 'message', body: args.message, replyMode })
          const name = delivery.nameOf(d.to)
          const when = targetBusy ? `${name} is busy; it will read it after its current turn.` : `${name} was idle; the message started its turn.`
          const back =
            replyMode === 'sender'
              ? `Its answer will come to you as a new message later; do not wait for it in this turn.`
              : `${name} will answer the user in its own chat; nothing comes back to you.`
          return `Sent to ${name} (${d.id}, hop ${d.hop}). ${when} ${back}`
        })
      },
    }),
    defineTeamTool({
      name: 'interrupt_bot',
      description: `Main Bots only: put a message into another Bot's CURRENT turn; it reads it at its next step (or it starts a turn if idle). Use for corrections that cannot wait; otherwise use message_bot. ${SELF_CONTAINED} Nothing is sent back automatically.`,
      parameters: {
        to: { type: 'string', required: true, description: 'The Bot, by name or id.' },
        message: { type: 'string', required: true, description: 'The self-contained message.' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const { delivery: d, targetBusy } = await delivery.send(from(exec), { to: args.to, kind: 'interrupt', body: args.message })
          const name = delivery.nameOf(d.to)
          return targetBusy
            ? `Interrupted ${name} (${d.id}, hop ${d.hop}): it reads your message at its next step, inside its current turn.`
            : `${name} was idle; your message (${d.id}, hop ${d.hop}) started its turn.`
        })
      },
    }),
    defineTeamTool({
      name: 'stop_bot',
      description:
        "Main Bots only, and only when the user asks or a Bot is clearly doing harm or wasting work: end another Bot's current turn now. Bot messages queued for it are discarded and their senders told; the user's own queued prompts are kept. Its next turn tells it that you stopped it and why.",
      parameters: {
        to: { type: 'string', required: true, description: 'The Bot, by name or id.' },
        reason: { type: 'string', required: true, description: 'Why, in a sentence (the Bot is told).' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const result = await delivery.stop(from(exec), args.to, args.reason)
          const name = result.targetName
          if (!result.stopped) return `${name} was not working; nothing was stopped.`
          const parts = [`Stopped ${name}'s turn.`]
          parts.push(
            result.discarded ? `${result.discarded} queued Bot message(s) were discarded and their senders told.` : 'No Bot messages were queued for it.',
          )
          if (result.keptUserPrompts) parts.push(`${result.keptUserPrompts} prompt(s) the user had queued are kept.`)
          parts.push(`Its next turn tells it that you stopped it and why.`)
          return parts.join(' ')
        })
      },
    }),
  ]
}

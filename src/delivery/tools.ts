/**
 * The delivery tools on a Bot's own chat, by the role its part was offered for: `message_bot`
 * (with `interrupt` for Main Bots: into the target's current turn) and, for Main Bots, `stop_bot`.
 * Thin adapters: the service identifies the Bot and checks everything (authority, hops, send cap,
 * work budget, sizes); refusals are answers ("Refused: …"), not throws. No tool waits for the
 * target's turn (two Bots waiting on each other would deadlock): answers come back as messages.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import { requesterOf as from } from '../core/caller.ts'
import type { BotDelivery } from './service.ts'
import type { Offer } from '../core/offer.ts'

const text = textOutput

/** All the tools may use of the service (the type keeps them from reaching past it). */
export type DeliveryToolHost = Pick<BotDelivery, 'send' | 'stop' | 'nameOf'>

export function deliveryTools(delivery: DeliveryToolHost, offer: Offer): ToolDefinition[] {
  const interrupts = offer.may('interrupt_bot')
  const tools: ToolDefinition[] = [
    defineTeamTool({
      name: 'message_bot',
      description: `Message another Bot; it reads it after its current turn. It cannot see your chat: be self-contained. Its answer comes to you later (reply_to user: to the user).${interrupts ? ' interrupt: into its current turn instead, for what cannot wait; no answer comes back.' : ''}`,
      parameters: {
        to: { type: 'string', required: true },
        message: { type: 'string', required: true },
        reply_to: { type: 'string', enum: ['me', 'user'] },
        ...(interrupts ? { interrupt: { type: 'boolean' } } : {}),
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          if ((args as { interrupt?: boolean }).interrupt === true) {
            const { delivery: d, targetBusy } = await delivery.send(from(exec), { to: args.to, kind: 'interrupt', body: args.message })
            const name = delivery.nameOf(d.to)
            return targetBusy
              ? `Interrupted ${name} (${d.id}, hop ${d.hop}): it reads your message at its next step, inside its current turn.`
              : `${name} was idle; your message (${d.id}, hop ${d.hop}) started its turn.`
          }
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
  ]
  if (offer.may('stop_bot'))
    tools.push(
      defineTeamTool({
        name: 'stop_bot',
        description:
          "End another Bot's turn now, when the user asks or it is doing harm; Bot messages queued for it are dropped (senders told). It is told why.",
        parameters: {
          to: { type: 'string', required: true },
          reason: { type: 'string', required: true },
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
    )
  return tools
}

/**
 * The memory tools on every Bot Session: `remember`, `forget`, `recall`. Each names its caller
 * from the calling Session (`exec.agent`) and answers in plain text; refusals are answers the
 * model can act on. Deliberately narrow: argument shapes and wording; `botMemory` does the work.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotMemory } from './service.ts'
import { requesterOf } from '../core/caller.ts'

export function memoryTools(memory: BotMemory): ToolDefinition[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  return [
    defineTeamTool({
      name: 'remember',
      description: `Save one lasting fact, preference or decision to long-term memory (one short fact per entry, at most ${memory.limits.entry} characters), or replace an entry. Longer details go into a topic. Never save keys, passwords, codes or ID numbers. Saved entries show in your memory section from the next conversation part; recall finds them at once.`,
      parameters: {
        text: { type: 'string', required: true, description: 'The fact, in one line.' },
        topic: { type: 'string', description: 'Topic file for details (letters, digits, "-", "_"); omit for MEMORY.md.' },
        team: { type: 'boolean', description: 'Write team memory (Main Bots and group admins).' },
        replace: { type: 'string', description: 'The entry to replace (its text or a unique part of it).' },
        bot: { type: 'string', description: "Another Bot's memory, by name or id (Main Bots, only when the user asks)." },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(() =>
          memory.remember(requesterOf(exec), {
            text: String(args.text ?? ''),
            topic: str(args.topic),
            team: args.team === true,
            replace: str(args.replace),
            bot: str(args.bot),
          }),
        )
      },
    }),
    defineTeamTool({
      name: 'forget',
      description: 'Remove one entry from long-term memory.',
      parameters: {
        entry: { type: 'string', required: true, description: 'The entry (its text or a unique part of it).' },
        topic: { type: 'string', description: 'The topic it is in; omit for MEMORY.md.' },
        team: { type: 'boolean', description: 'In team memory.' },
        bot: { type: 'string', description: "Another Bot's memory, by name or id (Main Bots, only when the user asks)." },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(() =>
          memory.forget(requesterOf(exec), { entry: String(args.entry ?? ''), topic: str(args.topic), team: args.team === true, bot: str(args.bot) }),
        )
      },
    }),
    defineTeamTool({
      name: 'recall',
      description: "Search your and the team's long-term memory, topic files included, as it is now (also what was saved during this conversation).",
      parameters: {
        query: { type: 'string', description: 'Words to look for; empty lists everything.' },
      },
      output: textOutput,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(async () => memory.recall(requesterOf(exec), String(args.query ?? '')))
      },
    }),
  ]
}

/**
 * `read_own_chat` — the archive's tool, on a Bot's own chat (a group Session reads its room with
 * `read_group_chat`). Wording and argument shapes only: the service identifies the caller from the
 * calling Session, asks the authority check, validates the arguments and answers in plain text
 * (refusals too). Concurrency-safe: it only reads (catch-up writes derived data).
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotArchive } from './service.ts'

export function archiveTools(archive: BotArchive): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'read_own_chat',
      description: 'Search or reread your whole chat word for word, every part, also what left your context. No argument: your latest lines.',
      parameters: {
        query: { type: 'string', description: 'Words; "a phrase" in quotes.' },
        around: { type: 'string', description: 'An anchor, e.g. "part 2 #135": that message and its neighbours.' },
        part: { type: 'integer', description: 'The note that closed part N.' },
      },
      output: textOutput,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(() => archive.readOwnChat(exec.agent ? String(exec.agent.id) : undefined, args))
      },
    }),
  ]
}

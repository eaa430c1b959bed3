/**
 * `read_own_chat` — the archive's tool, on every Bot Session (own chat and group Sessions).
 *
 * Wording and argument shapes only: the service identifies the caller from the calling Session,
 * asks the authority check, validates the arguments and answers in plain text; refusals are answers
 * ("Refused: …"), not thrown errors. Concurrency-safe: it only reads (catch-up writes derived data).
 *
 * Prompt cost: one tool schema of about 170 tokens on each Bot request; it is static text, so it
 * stays inside the prompt-cache prefix.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotArchive } from './service.ts'

export function archiveTools(archive: BotArchive): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'read_own_chat',
      description:
        'Search or reread everything in your own chat, including what has left your context: every part, word for word. ' +
        'query: words to find (ranked by relevance; "a quoted phrase" matches exactly; Chinese/Japanese substrings work). ' +
        'around: an anchor like "part 2 #135" shows that message whole with the lines around it. ' +
        'part: the note that closed that part. No argument: your latest lines. Each line starts with its anchor.',
      parameters: {
        query: { type: 'string', description: 'Words or a "quoted phrase" to find.' },
        around: { type: 'string', description: 'An anchor as shown before a line, e.g. "part 2 #135" ("#135" = current part).' },
        part: { type: 'integer', description: 'A part number: the note that closed it.' },
      },
      output: textOutput,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(() => archive.readOwnChat(exec.agent ? String(exec.agent.id) : undefined, args))
      },
    }),
  ]
}

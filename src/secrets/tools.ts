/**
 * The `request_secret` tool on every Bot's own chat (not in group Sessions: a card belongs beside
 * the Bot's chat with the person; a Bot in a group asks from its own chat). It names its caller
 * from the calling Session; refusals are answers the model can act on. Deliberately narrow:
 * argument shapes and wording; `botSecrets` does the work. The tool's description adds about 90
 * tokens to every own-chat request (stable text, so it stays in the prompt cache).
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotSecrets } from './service.ts'

export function requestSecretTool(secrets: BotSecrets): ToolDefinition {
  return defineTeamTool({
    name: 'request_secret',
    description:
      'Ask the user for a secret (key, token, password) a command needs; they enter it on a card. Only your shell gets it, as $DSH_SECRET_<NAME>; never print or send it. End your turn after asking.',
    parameters: {
      name: { type: 'string', required: true, description: 'e.g. GH_TOKEN' },
      purpose: { type: 'string', required: true, description: 'Shown to the user.' },
    },
    output: textOutput,
    async execute(args, exec) {
      return answer(async () => {
        if (!exec.agent) return "Refused: request_secret works only in a Bot's own chat."
        return secrets.request(String(exec.agent.id), args.name, args.purpose)
      })
    },
  })
}

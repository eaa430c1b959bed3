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
      'Ask the user for a secret (API key, token, password) you need for a command. The user enters it on a secret card outside this chat; it then reaches only your bash environment as $DSH_SECRET_<NAME> (map it, e.g. GH_TOKEN="$DSH_SECRET_GH_TOKEN" gh ...). You never see the value: never ask for it in chat, never print or send it. End your turn after asking.',
    parameters: {
      name: { type: 'string', required: true, description: 'Variable name, e.g. GH_TOKEN (letters, digits, underscores).' },
      purpose: { type: 'string', required: true, description: 'What you need it for, in one line (shown to the user).' },
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

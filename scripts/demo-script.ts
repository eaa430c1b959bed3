// Offline demo script for the product's start command when no DEEPSEEK_API_KEY is set: it says it is
// the offline demo model; asked about the team it calls list_bots and summarises; a handful of plain
// requests in English and Chinese (`demo-intents.ts`) become one team tool call each; before a plan,
// Scout asks the person one question (`demo-ask.ts`); a plan's tasks go to the planning Bot and a
// task Session hands its task in; the greeting plan runs two project tasks to merges (`demo-project.ts`).
// Deliberately does not: start a server (run `node scripts/scripted-model/server.ts --script
// scripts/demo-script.ts`) or pretend to be a real model (it never answers the question itself).
import { lastToolResults, lastUserText, offersTool, userTextsSinceLastAssistant } from './scripted-model/format.ts'
import type { RecordedRequest, Reply, Script } from './scripted-model/format.ts'
import { canDo, isChinese, ownBotId, understand } from './demo-intents.ts'
import { questionFirst } from './demo-ask.ts'
import { projectStep } from './demo-project.ts'

const NO_KEY = 'No DEEPSEEK_API_KEY is set, so Bot Team is running on this offline demo model instead of DeepSeek.'
const HOW_TO = 'To talk to a real model, set DEEPSEEK_API_KEY (for example in your shell or a .env file) and start Bot Team again.'

/** True when the text asks about bots or the team. */
export function mentionsTeam(text: string): boolean {
  return /\b(bots?|team(?:mates?|s)?|roster|crew)\b/i.test(text)
}

function summarise(text: string, isError: boolean | undefined): string {
  if (isError === true) return `I asked \`list_bots\`, but it reported an error:\n\n${text}\n\n${HOW_TO}`
  const bullets = text.split('\n').filter((l) => l.trimStart().startsWith('- ')).length
  const head =
    bullets > 0 ? `I called \`list_bots\` and found ${bullets} Bot${bullets === 1 ? '' : 's'} on your team:` : 'I called `list_bots`; here is what it says:'
  const body = text.length > 2000 ? `${text.slice(0, 2000)}…` : text
  return `${head}\n\n${body}\n\n(That list is real; this reply is from the offline demo model. ${HOW_TO})`
}

/** The demo's only rule: every loop request is answered from the request itself, so it never runs out. */
const INTENT_TOOLS = ['manage_bot', 'message_bot', 'manage_group', 'post_to_group', 'stop_bot', 'plan_tasks']

export function demoReply(req: RecordedRequest): Reply {
  const said = lastUserText(req) ?? ''
  const zh = isChinese(said)
  const project = projectStep(req, said)
  if (project) return project
  const asking = questionFirst(req, said, zh)
  if (asking) return asking
  const acted = lastToolResults(req).find((r) => r.name !== undefined && INTENT_TOOLS.includes(r.name))
  if (acted !== undefined) {
    const body = acted.text.length > 2000 ? `${acted.text.slice(0, 2000)}…` : acted.text
    return { text: zh ? `我调用了 \`${acted.name}\`，结果：\n\n${body}` : `I called \`${acted.name}\`. It said:\n\n${body}` }
  }
  // A task Session: hand the task in at once (the person reviews it on the board).
  if (offersTool(req, 'submit_task')) {
    if (lastToolResults(req).some((r) => r.name === 'submit_task')) return { text: zh ? '已提交审核。' : 'Handed in for review.' }
    return { toolCalls: [{ name: 'submit_task', args: { note: zh ? '离线演示模型完成了这一步。' : 'Done by the offline demo model.' } }] }
  }
  const intent = understand(said)
  if (intent?.tool === 'plan_tasks' && offersTool(req, 'plan_tasks')) {
    const me = ownBotId(req.system)
    const tasks = intent.args.tasks.map((t) => (me ? { ...t, assignee: me } : t))
    return { text: zh ? '好的，我来规划。' : 'Here is a small plan.', toolCalls: [{ name: 'plan_tasks', args: { tasks } }] }
  }
  if (intent && offersTool(req, intent.tool)) return { text: zh ? '好的。' : 'On it.', toolCalls: [{ name: intent.tool, args: intent.args }] }
  const listed = lastToolResults(req).find((r) => r.name === 'list_bots')
  if (listed !== undefined) return { text: summarise(listed.text, listed.isError) }
  const asked = userTextsSinceLastAssistant(req).some(mentionsTeam)
  if (asked && offersTool(req, 'list_bots')) {
    return { text: 'Let me look up your team.', toolCalls: [{ name: 'list_bots', args: {} }] }
  }
  const teamHint = offersTool(req, 'list_bots')
    ? 'Ask me about your bots or your team and I will call `list_bots` to show who is on it.'
    : 'I can only echo the basics here.'
  return {
    text: `Hi! I'm the offline demo model. ${NO_KEY} I can't really think, but I can show you around. ${teamHint} ${canDo(zh)} ${HOW_TO}`,
  }
}

const demoScript: Script = {
  fallback: demoReply,
  title: (req) => {
    const t = lastUserText(req)
    return t === undefined ? 'Offline demo' : `Offline demo: ${t.slice(0, 40)}`
  },
}

export default demoScript

// The offline demo's one question before a plan (pure, over one request). A Main Bot is not offered
// ask_person (the person is in its chat), so on "make a plan to …" the demo's Main Bot creates Scout
// (a non-Main Bot; once — a second create is refused and the demo goes on) and messages it; Scout
// asks the person which tone the work should take (ask_person, two choices: it waits in the inbox);
// the answer's turn has Scout pass it on to Main, whose turn plans the three tasks with the answer
// in their briefs. Deliberately narrow: fixed wording, parsed back from the demo's own messages.
import { lastToolResults, offersTool } from './scripted-model/format.ts'
import type { RecordedRequest, Reply } from './scripted-model/format.ts'
import { demoPlan, isChinese, ownBotId, understand } from './demo-intents.ts'

const SCOUT = 'Scout'
const ASK = /Ask the person one question before the plan to (.+?), then pass the answer on to Main\./s
const ANSWERED =
  /^The user answered your question task-\d+ \("(?:Before I plan "(.+?)": which tone should it take\?|在规划「(.+?)」之前：用什么语气？)"\): (.+)$/s
const PLAN_NOW = /The person answered: (.+?)\. Plan it now: ([^\n]+)/

/** The demo's reply when a step of the question before a plan is due, else undefined. */
export function questionFirst(req: RecordedRequest, said: string, zh: boolean): Reply | undefined {
  const results = lastToolResults(req)
  const done = (tool: string) => results.some((r) => r.name === tool)
  // Main, told by Scout what the person answered: plan now, the answer in every brief.
  const planNow = PLAN_NOW.exec(said)
  if (planNow && offersTool(req, 'plan_tasks') && !done('plan_tasks')) {
    const me = ownBotId(req.system)
    const tasks = demoPlan(planNow[2]!, zh, zh ? `用户的回答：${planNow[1]}。` : `The person answered: ${planNow[1]}.`).map((t) =>
      me ? { ...t, assignee: me } : t,
    )
    return { text: zh ? '好的，我来规划。' : 'Here is a small plan.', toolCalls: [{ name: 'plan_tasks', args: { tasks } }] }
  }
  // Scout, asked by Main: one question for the person, with two choices.
  const asked = ASK.exec(said)
  if (asked && offersTool(req, 'ask_person')) {
    if (done('ask_person')) return { text: zh ? '我已向用户提问，收到回答后转告 Main。' : 'I asked the person; I will pass the answer on to Main.' }
    const goal = asked[1]!
    const question = isChinese(goal) ? `在规划「${goal}」之前：用什么语气？` : `Before I plan "${goal}": which tone should it take?`
    const choices = isChinese(goal) ? ['亲切', '正式'] : ['Friendly', 'Formal']
    return { toolCalls: [{ name: 'ask_person', args: { question, choices } }] }
  }
  // Scout, answered: pass the answer on to Main.
  const answered = ANSWERED.exec(said)
  if (answered && offersTool(req, 'message_bot')) {
    if (done('message_bot')) return { text: zh ? '已转告 Main。' : 'Passed on to Main.' }
    const message = `The person answered: ${answered[3]!.replace(/\.\s*$/, '')}. Plan it now: ${answered[1] ?? answered[2]}`
    return { toolCalls: [{ name: 'message_bot', args: { to: 'Main', message, reply_to: 'user' } }] }
  }
  // Main, told "make a plan to …" by the person: create Scout, then ask it to ask.
  const intent = understand(said)
  if (intent?.tool !== 'plan_tasks' || !['manage_bot', 'message_bot', 'plan_tasks'].every((t) => offersTool(req, t))) return undefined
  const sent = results.find((r) => r.name === 'message_bot')
  // A refusal (Scout could not be made or messaged) is shown as any tool's answer is.
  if (sent)
    return sent.text.startsWith('Refused')
      ? undefined
      : {
          text: zh
            ? `我请 ${SCOUT} 先问你一个问题：在「任务」的收件箱里回答，计划就会开始。`
            : `I asked ${SCOUT} to ask you one question first: answer it in the Inbox on the Tasks board, and the plan starts.`,
        }
  if (done('manage_bot')) {
    const message = `Ask the person one question before the plan to ${intent.goal}, then pass the answer on to Main.`
    return { toolCalls: [{ name: 'message_bot', args: { to: SCOUT, message, reply_to: 'user' } }] }
  }
  const role = zh ? '规划前向用户提问' : 'asks before a plan'
  return { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: SCOUT, role, instructions: `You ${role}.` } }] }
}

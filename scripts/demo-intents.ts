// biome-ignore-all lint/suspicious/noAssignInExpressions: each intent is one `if ((m = pattern.exec(text)))`, read top to bottom.
// What the offline demo model understands (pure): a handful of plain requests in English and
// Chinese, each turned into one team tool call — create a Bot named X (who does Y), ask X to …,
// create a group with X and Y, post in a group, stop X, make a plan to … (three tasks in a row). Anything else is not understood and the
// demo says what it can do.
// Deliberately narrow: patterns over the person's last message, no model; names are taken as
// written (the team tools validate them and answer a refusal the demo then shows).

export type DemoIntent =
  | { tool: 'manage_bot'; args: { action: 'create'; name: string; role?: string; instructions?: string } }
  | { tool: 'message_bot'; args: { to: string; message: string; reply_to: 'user' } }
  | { tool: 'manage_group'; args: { action: 'create'; name: string; members: string[] } }
  | { tool: 'post_to_group'; args: { group: string; text: string } }
  | { tool: 'stop_bot'; args: { to: string; reason: string } }
  | { tool: 'plan_tasks'; args: { tasks: PlannedTask[] }; goal: string }

export interface PlannedTask {
  key: string
  title: string
  brief: string
  acceptance: string
  blocked_by?: string[]
  assignee?: string
}

/** The goal as the plan names it: no closing stop, at most 100 characters. */
export function planGoal(goal: string): string {
  return goal
    .replace(/[.。!！]+$/u, '')
    .trim()
    .slice(0, 100)
}

/** A small plan for `goal`: outline, draft, check, each after the one before; `note` (the person's answer) ends each brief. */
export function demoPlan(goal: string, chinese: boolean, note?: string): PlannedTask[] {
  const g = planGoal(goal)
  const steps = chinese
    ? [
        ['outline', `列提纲：${g}`, `为「${g}」列一个三点提纲。`, '三点提纲。'],
        ['draft', `写初稿：${g}`, `按提纲为「${g}」写一段初稿。`, '一段初稿。'],
        ['check', `检查：${g}`, `检查「${g}」的初稿并列出修改。`, '修改清单。'],
      ]
    : [
        ['outline', `Outline: ${g}`, `Write a three-point outline for: ${g}.`, 'An outline of three points.'],
        ['draft', `Draft: ${g}`, `Write a first draft, following the outline, for: ${g}.`, 'One paragraph of draft.'],
        ['check', `Check: ${g}`, `Check the draft for: ${g}, and list the changes it needs.`, 'A list of changes.'],
      ]
  return steps.map(([key, title, brief, acceptance], i) => ({
    key: key!,
    title: title!.slice(0, 120),
    brief: note ? `${brief!}${chinese ? '' : ' '}${note}` : brief!,
    acceptance: acceptance!,
    ...(i ? { blocked_by: [steps[i - 1]![0]!] } : {}),
  }))
}

const NAME = String.raw`["“]?([\p{L}\p{N}_-]{1,40})["”]?`
/** In Chinese sentences a name touches the words around it: Latin names, or any name set off by spaces or quotes. */
const NAME_ZH = String.raw`["“「]?([A-Za-z0-9_-]{1,40}|[\p{L}\p{N}_-]{1,40}(?=\s|["”」]))["”」]?`

/** The Bot's own id, from the identity line of its system prompt ("… (id bot-…)."). */
export function ownBotId(system: string): string | undefined {
  return /a long-lived Bot on a team of Bots in DeepSeek Harness \(id ([^)\s]{1,200})\)/.exec(system)?.[1]
}

/** True when the text is mostly Chinese (answers follow the person's language). */
export function isChinese(text: string): boolean {
  return /[\u4e00-\u9fff]/.test(text)
}

function members(list: string): string[] {
  return list
    .split(/\s*(?:,|，|、|\band\b|和|与|及)\s*/u)
    .map((s) => s.trim().replace(/^["“]|["”]$/g, ''))
    .filter(Boolean)
    .slice(0, 12)
}

export function understand(raw: string): DemoIntent | undefined {
  const text = raw.trim().slice(0, 2000)
  let m: RegExpExecArray | null
  // create a Bot named X (who does Y)
  if (
    (m = new RegExp(
      String.raw`^(?:please\s+)?(?:create|make|add)\s+(?:a\s+|an\s+)?(?:new\s+)?bot\s+(?:named|called)\s+${NAME}(?:\s*,?\s*(?:who|that|to)\s+(.+))?$`,
      'iu',
    ).exec(text))
  ) {
    const does = m[2]?.replace(/[.。!]+$/, '').trim()
    return { tool: 'manage_bot', args: { action: 'create', name: m[1]!, ...(does ? { role: does.slice(0, 24), instructions: `You ${does}.` } : {}) } }
  }
  if (
    (m = new RegExp(
      String.raw`^(?:请)?(?:创建|新建|添加)(?:一个)?(?:名为|叫做?|名叫)\s*${NAME_ZH}\s*的?\s*Bot(?:\s*[，,]\s*(?:负责|用来|专门)?(.+))?$`,
      'iu',
    ).exec(text))
  ) {
    const does = m[2]?.replace(/[。.!！]+$/, '').trim()
    return { tool: 'manage_bot', args: { action: 'create', name: m[1]!, ...(does ? { role: does.slice(0, 24), instructions: `你负责${does}。` } : {}) } }
  }
  // create a group (named G) with X and Y
  if (
    (m = new RegExp(String.raw`^(?:please\s+)?(?:create|make|start)\s+(?:a\s+)?group(?:\s+(?:named|called)\s+${NAME})?\s+with\s+(.+?)[.!]?$`, 'iu').exec(text))
  ) {
    const list = members(m[2]!)
    return { tool: 'manage_group', args: { action: 'create', name: m[1] ?? `${list.join('-')}`.slice(0, 60), members: list } }
  }
  if (
    (m = new RegExp(
      String.raw`^(?:请)?(?:创建|新建|建)(?:一个)?(?:名为|叫做?)?\s*(?:${NAME_ZH}\s*的?\s*)?群组?[，,]?\s*(?:成员(?:有|是)?|包括|包含|有)\s*(.+?)[。.]?$`,
      'iu',
    ).exec(text))
  ) {
    const list = members(m[2]!)
    return { tool: 'manage_group', args: { action: 'create', name: m[1] ?? `${list.join('-')}`.slice(0, 60), members: list } }
  }
  // post in group G: text
  if ((m = new RegExp(String.raw`^(?:please\s+)?post\s+(?:in|to)\s+(?:the\s+)?(?:group\s+)?${NAME}\s*[:：]\s*(.+)$`, 'isu').exec(text))) {
    return { tool: 'post_to_group', args: { group: m[1]!, text: m[2]!.trim() } }
  }
  if ((m = new RegExp(String.raw`^(?:请)?在\s*${NAME_ZH}\s*群组?里?\s*(?:发|发布|说)\s*[:：]?\s*(.+)$`, 'isu').exec(text))) {
    return { tool: 'post_to_group', args: { group: m[1]!, text: m[2]!.trim() } }
  }
  // stop X
  if ((m = new RegExp(String.raw`^(?:please\s+)?stop\s+${NAME}[.!]?$`, 'iu').exec(text))) {
    return { tool: 'stop_bot', args: { to: m[1]!, reason: 'The person asked to stop.' } }
  }
  if (
    (m = new RegExp(String.raw`^(?:请)?(?:停止|停下|叫停)\s*${NAME_ZH}[。.!！]?$`, 'iu').exec(text)) ||
    (m = new RegExp(String.raw`^(?:请)?让\s*${NAME_ZH}\s*停(?:下|止)[。.!！]?$`, 'iu').exec(text))
  ) {
    return { tool: 'stop_bot', args: { to: m[1]!, reason: '用户要求停止。' } }
  }
  // make a plan to …
  if ((m = /^(?:please\s+)?(?:make|create|draw up|write)\s+(?:a\s+)?plan\s+(?:to|for)\s+(.+)$/isu.exec(text))) {
    return { tool: 'plan_tasks', args: { tasks: demoPlan(m[1]!, false) }, goal: planGoal(m[1]!) }
  }
  if ((m = /^(?:请)?(?:制定|做|定|拟定|订)(?:一个|个)?计划[，,：:]?\s*(?:来|去|用来)?(.+)$/su.exec(text))) {
    return { tool: 'plan_tasks', args: { tasks: demoPlan(m[1]!, true) }, goal: planGoal(m[1]!) }
  }
  // ask X to …
  if ((m = new RegExp(String.raw`^(?:please\s+)?(?:ask|tell)\s+${NAME}\s+to\s+(.+)$`, 'isu').exec(text))) {
    return { tool: 'message_bot', args: { to: m[1]!, message: `Please ${m[2]!.trim()}`, reply_to: 'user' } }
  }
  if ((m = new RegExp(String.raw`^(?:请)?(?:让|叫|请)\s*${NAME_ZH}\s*(.+)$`, 'isu').exec(text))) {
    return { tool: 'message_bot', args: { to: m[1]!, message: `请${m[2]!.trim()}`, reply_to: 'user' } }
  }
  return undefined
}

/** What the demo says it can do, in the person's language. */
export function canDo(chinese: boolean): string {
  return chinese
    ? '我是离线演示模型，能听懂这几句：「创建一个叫 Writer 的 Bot，负责写作」「让 Writer 写一首诗」「创建群组，成员有 Writer 和 Main」「在 Writer-Main 群里发：大家好」「停止 Writer」「制定一个计划：写发布说明」。'
    : 'I am the offline demo model and understand a few plain requests: "create a Bot named Writer who writes drafts", "ask Writer to draft a haiku", "create a group with Writer and Main", "post in Writer-Main: hello all", "stop Writer", "make a plan to write a launch note".'
}

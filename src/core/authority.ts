/**
 * Team authority — who may do what on the team, decided from structured facts: `decide(caller,
 * action, target)`, the single pure function every team tool, route and service asks (the rules
 * table is on `decide`), and the wording of its refusals. Deliberately does not read team state,
 * resolve names, check limits, or find out who opened a turn or whether a request is paired: the
 * services fill in those facts (against the state being saved, inside its transaction).
 * No I/O, no DSH imports.
 */

export type CallerKind = 'user' | 'main-bot' | 'bot' | 'non-bot-session'

/** Who is asking. `user` is the human through the plugin's HTTP API/UI; bots carry their id. */
export interface Caller {
  kind: CallerKind
  botId?: string
  /**
   * `user` over HTTP: whether the request came from a paired browser (a Bot's shell on loopback
   * looks like any other unpaired client). Absent: the person in process (the plugin itself).
   */
  paired?: boolean
}

export type TeamAction =
  | 'list_bots'
  | 'list_models'
  | 'create_bot'
  | 'update_bot'
  | 'delete_bot'
  | 'message_bot'
  | 'interrupt_bot'
  | 'stop_bot'
  | 'create_group'
  | 'update_group'
  | 'delete_group'
  | 'post_to_group'
  | 'read_group_chat'
  | 'write_own_memory'
  | 'write_team_memory'
  | 'read_own_chat'
  | TaskAction

/** What can be done with the team's shared tasks (the task ledger). */
export type TaskAction =
  | 'plan_tasks'
  | 'claim_task'
  | 'update_task'
  | 'submit_task'
  | 'review_task'
  | 'cancel_task'
  | 'reassign_task'
  | 'ask_person'
  | 'answer_task'

/** The task actions, in a stable order. */
export const TASK_ACTIONS: readonly TaskAction[] = [
  'plan_tasks',
  'claim_task',
  'update_task',
  'submit_task',
  'review_task',
  'cancel_task',
  'reassign_task',
  'ask_person',
  'answer_task',
]

/** Every action, in a stable order (for UIs, prompts and test matrices). */
export const TEAM_ACTIONS: readonly TeamAction[] = [
  'list_bots',
  'list_models',
  'create_bot',
  'update_bot',
  'delete_bot',
  'message_bot',
  'interrupt_bot',
  'stop_bot',
  'create_group',
  'update_group',
  'delete_group',
  'post_to_group',
  'read_group_chat',
  'write_own_memory',
  'write_team_memory',
  'read_own_chat',
  ...TASK_ACTIONS,
]

/** Facts about what the action is aimed at, filled in by the roster service. */
export interface Target {
  /** The Bot acted on (update/delete/message/interrupt/stop; own chat/memory). */
  botId?: string
  /** Whether that Bot is a Main Bot. Informational: no rule depends on it. */
  botIsMain?: boolean
  /** The group acted on. */
  groupId?: string
  /** The caller is the admin of `groupId`. */
  callerIsGroupAdmin?: boolean
  /** The caller is a member of `groupId`. */
  callerIsGroupMember?: boolean
  /** The caller is the admin of at least one live group (team memory rights). */
  callerAdminsAnyGroup?: boolean
  /** A round is running in `groupId`. */
  roundRunning?: boolean
  /** Carrying the action out would leave the team with no live Main Bot. */
  wouldRemoveLastMain?: boolean
  /**
   * The calling Bot acts in a turn the user opened (a prompt of theirs is among the messages that
   * opened it). Changing, deleting or writing the memory of ANOTHER Bot needs it, and so do making
   * a Main Bot, a hidden Bot or a group's admin.
   */
  userAsked?: boolean
  /** Carrying the action out raises a Bot's permission preset above what it (or, creating: the caller; over HTTP: the default) has. */
  raisesPreset?: boolean
  /** The preset the Bot would be given (created, or set by the change, not a lowering) is above the mode the calling turn runs at. */
  exceedsTurnMode?: boolean
  /** The change makes a Bot a Main Bot. */
  makesMain?: boolean
  /** The change hides a Bot from the team's sidebar. */
  hides?: boolean
  /** The change makes a Bot a group's admin (creating a group with one, or naming another admin). */
  makesAdmin?: boolean
  /** The change sets (or clears) a Bot's working folder: the person's act only. */
  setsWorkFolder?: boolean
  /** The change sets or clears a Bot's "accepts delegated work" flag: the person's act only. */
  setsDelegatedWork?: boolean
  /** The change rewrites a Bot's standing instructions (frozen into its every request). */
  changesInstructions?: boolean
  /** The task acted on (every task action but `plan_tasks`). */
  taskId?: string
  /** The caller created that task. */
  callerCreatedTask?: boolean
  /** The caller is that task's assignee. */
  callerIsAssignee?: boolean
  /** The task is assigned to a Bot other than the caller (`claim_task`). */
  assignedToOther?: boolean
  /** The person reviews that task (marked so, or the person created it). */
  personReviews?: boolean
}

/** `reason` is a plain sentence the model can read and act on. */
export type Decision = { allowed: true } | { allowed: false; reason: string }

const ALLOW: Decision = Object.freeze({ allowed: true })

function refuse(reason: string): Decision {
  return { allowed: false, reason }
}

const BOT_TARGETED: ReadonlySet<TeamAction> = new Set<TeamAction>(['update_bot', 'delete_bot', 'message_bot', 'interrupt_bot', 'stop_bot'])
const TASK_TARGETED: ReadonlySet<TeamAction> = new Set<TeamAction>(TASK_ACTIONS.filter((a) => a !== 'plan_tasks' && a !== 'ask_person'))
const GROUP_TARGETED: ReadonlySet<TeamAction> = new Set<TeamAction>(['update_group', 'delete_group', 'post_to_group', 'read_group_chat'])

type MainOnlyAction = 'create_bot' | 'update_bot' | 'delete_bot' | 'interrupt_bot' | 'stop_bot' | 'create_group' | 'delete_group'

const MAIN_ONLY: Readonly<Record<MainOnlyAction, string>> = {
  create_bot: 'Only a Main Bot may create Bots. Ask a Main Bot or the user.',
  update_bot: 'Only a Main Bot may change Bots, including your own settings. Ask a Main Bot or the user.',
  delete_bot: 'Only a Main Bot may delete Bots. Ask a Main Bot or the user.',
  interrupt_bot: 'Only a Main Bot may interrupt another Bot. Ask a Main Bot or the user, or use message_bot to queue a message instead.',
  stop_bot: 'Only a Main Bot may stop another Bot. Ask a Main Bot or the user.',
  create_group: 'Only a Main Bot may create groups. Ask a Main Bot or the user.',
  delete_group: 'Only a Main Bot may delete groups, even a group you admin. Ask a Main Bot or the user.',
}

const REASONS = {
  notABot: 'Team actions are only for the Bots of the team and the user; this Session is not a Bot. Ask the user to use the team page or one of the Bots.',
  unidentified:
    'This Bot could not be identified, so the team action was refused. Only an identified Bot of the team or the user may act on the team; ask the user to check the team page.',
  noBot: 'No target Bot was named. Name the Bot by its name or id (call list_bots to see the team).',
  noGroup: 'No target group was named. Name the group by its name or id.',
  updateGroup: "Only a Main Bot or this group's admin may change the group. Ask a Main Bot, the group's admin or the user.",
  postToGroup: "Only a Main Bot or this group's admin may post to the group. Ask a Main Bot, the group's admin or the user.",
  readGroupChat: "Only this group's members and Main Bots may read its chat, and you are not a member. Ask a Main Bot or a member of the group.",
  readOtherChat: "You can read only your own chat; another Bot's chat is private to that Bot. Ask that Bot with message_bot, or ask the user.",
  writeOtherMemory:
    "You can write only your own memory; another Bot's memory belongs to that Bot. Ask that Bot with message_bot, or ask a Main Bot to write team memory.",
  teamMemory: 'Only Main Bots and group admins may write team memory. Ask a Main Bot or a group admin, or keep it in your own memory.',
  deleteSelf: 'You cannot delete yourself. Only the user (from the team page) or another Main Bot may delete you.',
  messageSelf: 'You cannot message yourself. Send the message to another Bot (call list_bots to see the team), or just continue your own work.',
  interruptSelf: 'You cannot interrupt yourself; a Main Bot may interrupt only another Bot. To change course, do so in your current turn.',
  stopSelf: 'You cannot stop yourself; a Main Bot may stop only another Bot. To end your work, finish your current turn.',
  deleteLastMain:
    'This is the last Main Bot, and the team is never without one. The user or a Main Bot must make another Bot a Main Bot first, then delete this one.',
  unmainLastMain:
    'This change would leave the team without a Main Bot. The user or a Main Bot must make another Bot a Main Bot first, then remove the Main Bot role from this one.',
  roundRunning:
    'A round is running in this group, so it cannot be deleted now. Wait until the round ends (or stop its speakers); then a Main Bot or the user may delete it.',
  notAsked:
    'Changing, deleting or writing the memory of another Bot is done only when the user asks for it, and this turn was not opened by the user (another Bot, a room or a timer started it). Tell the user what you would change; they can ask you in your own chat or do it on the team page.',
  workFolder:
    "Only the person sets a Bot's working folder (it changes where the Bot may write), on the team page in DSH Web; a Bot cannot, not even a Main Bot. Nothing was changed. Tell the user which folder you suggest and why.",
  raise:
    "Raising a Bot's permission preset is the person's act, made on the paired team page; no Bot can raise one, and DSH's approval prompt does not stand in for it. Nothing was raised. Tell the user which preset you suggest and why; they raise it on the team page.",
  personTurn:
    "Making a Main Bot, hiding a Bot or making a Bot a group's admin is done only in a turn the user opened, and this turn was not (another Bot, a room, a timer or a notice started it). Nothing was changed. Tell the user what you would change; they can ask you in your own chat or do it on the team page.",
  aboveTurn:
    "This turn was not opened by the user, so it runs at its chain's lowest permission preset, and a Bot it creates or changes may not get more than that. Nothing was changed. Choose that preset or lower, or tell the user; they can ask you in your own chat or do it on the team page.",
  delegatedWork:
    'Only the person decides whether a Bot runs delegated work at its own preset, on the team page in DSH Web; a Bot cannot, not even a Main Bot. Nothing was changed.',
  notPaired:
    'This change gives a Bot more authority, or lets the team spend more, so it is accepted only from the paired team page: open /bot-team in your paired browser and make the change there. Requests from a shell, a script or an unpaired browser are refused, and nothing was changed.',
  noTask: "No task was named. Name it by its id (list_tasks shows the team's tasks).",
  planTasks: 'Only a Main Bot may plan tasks for the team. Ask a Main Bot or the user. Nothing was created.',
  claimOther: 'This task is assigned to another Bot; only its assignee takes it. Nothing changed.',
  claimPerson: 'The user does not take tasks to work on; give the task to a Bot with reassign. Nothing changed.',
  updateTask: 'You can update only a task you created or work on. Ask its creator, a Main Bot or the user. Nothing changed.',
  submitTask:
    'Only the Bot working on a task (its assignee) submits it, from its task Session; its creator, a Main Bot or the user reviews it. Nothing changed.',
  submitPerson: 'The user does not submit tasks; review a submitted one instead. Nothing changed.',
  reviewOwn: 'A Bot never reviews its own task. Its creator, a Main Bot or the user reviews it. Nothing changed.',
  reviewTask: "Only a task's creator, a Main Bot or the user reviews it. Ask one of them. Nothing changed.",
  cancelTask: "Only a task's creator, a Main Bot or the user cancels it. Ask one of them. Nothing changed.",
  reassignTask: "Only a task's creator, a Main Bot or the user gives it to another Bot. Ask one of them. Nothing changed.",
  reviewPerson: "The user reviews this task (its acceptance says so); no Bot may review it. It waits in the user's inbox. Nothing changed.",
  askSelf: 'The user answers questions in the inbox; the user does not ask them. Nothing was created.',
  askMain: 'A Main Bot asks the user in its own chat, where the user talks to it; the inbox is for the other Bots. Nothing was asked.',
  answerBot:
    "Only the person answers a question or an approval, from the paired team page; no Bot can, not even a Main Bot, and an answer never opens a turn of the person's. Nothing changed.",
} as const

/**
 * Decide one team action. Pure: the same facts always give the same answer.
 *
 * Rules (rows marked * are where the product spec is silent and this module chose):
 *
 * | action            | user (team page/API)      | Main Bot                      | Bot                               |
 * | ----------------- | ------------------------- | ----------------------------- | --------------------------------- |
 * | list_bots         | yes                       | yes                           | yes                               |
 * | list_models       | yes                       | yes                           | yes                               |
 * | create_bot        | yes ⁷                     | yes ⁵ ⁶ ⁸                     | no                                |
 * | update_bot        | yes¹ ⁷                    | yes, itself too¹ ⁴ ⁵ ⁶ ⁸      | no, not even itself*              |
 * | delete_bot        | yes¹                      | yes¹ ⁴, never itself          | no                                |
 * | message_bot       | yes                       | any other Bot                 | any other Bot                     |
 * | interrupt_bot     | yes                       | any other Bot (Main too*)     | no                                |
 * | stop_bot          | yes                       | any other Bot (Main too*)     | no                                |
 * | create_group      | yes ⁷                     | yes ⁸                         | no                                |
 * | update_group      | yes (also mid-round*) ⁷   | any group (also mid-round*) ⁸ | only a group it admins ⁸          |
 * | delete_group      | yes²                      | yes²                          | no, not even its own group*       |
 * | post_to_group     | yes (also mid-round*)     | any group                     | only a group it admins            |
 * | read_group_chat   | yes                       | any group                     | only groups it is a member of³    |
 * | read_own_chat     | yes, any Bot's*           | its own only                  | its own only                      |
 * | write_own_memory  | yes, any Bot's* ⁷         | its own; another's only ⁴     | its own only                      |
 * | write_team_memory | yes ⁷                     | yes                           | only if it admins some group      |
 * | plan_tasks        | yes ⁷                     | yes                           | no*                               |
 * | claim_task        | no*                       | unless assigned to another    | unless assigned to another        |
 * | update_task       | yes                       | yes                           | its creator or assignee           |
 * | submit_task       | no                        | its assignee only (lease: the ledger) | its assignee only          |
 * | review_task       | yes ⁷                     | yes, never its own task       | its creator, never its own task   |
 * | cancel_task       | yes ⁷                     | yes                           | its creator only                  |
 * | reassign_task     | yes ⁷                     | yes                           | its creator only                  |
 * | ask_person        | no*                       | no* (the person is in its chat) | yes                             |
 * | answer_task       | yes, paired only ⁹        | no                            | no                                |
 *
 * ¹ refused when it would leave the team with no Main Bot (`wouldRemoveLastMain`).
 * ² refused while a round runs in that group.  ³ a group's admin counts as a member.
 * ⁴ on ANOTHER Bot only in a turn the user opened (`userAsked`); a turn started by another Bot, a
 *   room, a timer or a notice is refused ("only when the user asks" is checked in code).
 * ⁵ raising a permission preset (`raisesPreset`) is the person's alone, on the paired team page:
 *   every Bot is refused, in any turn (DSH's approval prompt can be answered from a Bot's shell).
 * ⁶ the working folder (`setsWorkFolder`) and the delegated-work flag (`setsDelegatedWork`) are
 *   the person's alone, whatever the turn.
 * ⁷ over HTTP from an unpaired client (`caller.paired === false`), nothing that gives a Bot more
 *   authority: a preset above the current one (on create: above the default), a Main Bot, a hidden
 *   Bot, a group's admin, the working folder, the delegated-work flag, instructions, any memory write;
 *   and no task planned, reviewed (an accept starts the work it unblocks) or given to another Bot*.
 * ⁸ in a turn the user did not open: no preset above the turn's mode (`exceedsTurnMode`), and no
 *   Main Bot, hidden Bot or group admin (`makesMain`, `hides`, `makesAdmin`).
 * ⁹ answering a question or an approval (allow, deny) is the person's alone, and only from a paired
 *   browser: a shell that answers could approve its own Bot's call. `review_task` of a task the
 *   person reviews (`personReviews`) is the person's too.
 * - A plain DSH Session (`non-bot-session`) is refused everything; a Bot caller without a `botId` too.
 * - Actions aimed at one Bot (update/delete/message/interrupt/stop) need `target.botId`, actions
 *   aimed at one group (update/delete/post/read chat) need `target.groupId`, task actions but
 *   `plan_tasks` need `target.taskId`, for every caller*.
 *   `read_own_chat` and `write_own_memory` without `target.botId` mean the caller's own.
 * - `botIsMain` does not change any outcome*: several Main Bots are allowed.
 * - Order of checks (decides which reason a refusal gives): caller kind → caller identity → target
 *   named → role and scope → pairing → self → folder and flag → user asked → the person's turn →
 *   preset raise → the turn's mode → last Main Bot / running round.
 */
export function decide(caller: Caller, action: TeamAction, target: Target): Decision {
  if (caller.kind === 'non-bot-session') return refuse(REASONS.notABot)
  const isUser = caller.kind === 'user'
  const isMain = caller.kind === 'main-bot'
  if (!isUser && !isMain && caller.kind !== 'bot') return refuse(REASONS.notABot)
  if (!isUser && !caller.botId) return refuse(REASONS.unidentified)

  if (BOT_TARGETED.has(action) && !target.botId) return refuse(REASONS.noBot)
  if (GROUP_TARGETED.has(action) && !target.groupId) return refuse(REASONS.noGroup)
  if (TASK_TARGETED.has(action) && !target.taskId) return refuse(REASONS.noTask)

  const self = !isUser && target.botId !== undefined && target.botId === caller.botId
  /** A Bot acting on another Bot (not itself). */
  const other = !isUser && target.botId !== undefined && target.botId !== caller.botId
  /** For own-scope actions an absent target means the caller's own. */
  const ownScope = !isUser && (target.botId === undefined || target.botId === caller.botId)
  const mainOnly = (a: MainOnlyAction): Decision => (isUser || isMain ? ALLOW : refuse(MAIN_ONLY[a]))
  /** The person over HTTP without a paired browser. */
  const unpaired = isUser && caller.paired === false
  /** A Bot in a turn the user did not open, asking for what needs one. */
  const notPersonTurn = !isUser && !target.userAsked

  switch (action) {
    case 'list_bots':
    case 'list_models':
      return ALLOW

    case 'create_bot':
      if (!isUser && !isMain) return mainOnly(action)
      if (unpaired && (target.raisesPreset || target.makesMain || target.hides || target.setsWorkFolder)) return refuse(REASONS.notPaired)
      if (isUser) return ALLOW
      if (target.setsWorkFolder) return refuse(REASONS.workFolder)
      if (notPersonTurn && (target.makesMain || target.hides)) return refuse(REASONS.personTurn)
      if (target.raisesPreset) return refuse(REASONS.raise)
      if (notPersonTurn && target.exceedsTurnMode) return refuse(REASONS.aboveTurn)
      return ALLOW

    case 'create_group':
      if (!isUser && !isMain) return mainOnly(action)
      if (unpaired && target.makesAdmin) return refuse(REASONS.notPaired)
      if (notPersonTurn && target.makesAdmin) return refuse(REASONS.personTurn)
      return ALLOW

    case 'update_bot':
      if (!isUser && !isMain) return mainOnly('update_bot')
      if (
        unpaired &&
        (target.raisesPreset || target.makesMain || target.hides || target.setsWorkFolder || target.setsDelegatedWork || target.changesInstructions)
      )
        return refuse(REASONS.notPaired)
      if (!isUser && target.setsWorkFolder) return refuse(REASONS.workFolder)
      if (!isUser && target.setsDelegatedWork) return refuse(REASONS.delegatedWork)
      if (other && !target.userAsked) return refuse(REASONS.notAsked)
      if (notPersonTurn && (target.makesMain || target.hides)) return refuse(REASONS.personTurn)
      if (!isUser && target.raisesPreset) return refuse(REASONS.raise)
      if (notPersonTurn && target.exceedsTurnMode) return refuse(REASONS.aboveTurn)
      if (target.wouldRemoveLastMain) return refuse(REASONS.unmainLastMain)
      return ALLOW

    case 'delete_bot':
      if (!isUser && !isMain) return mainOnly('delete_bot')
      if (self) return refuse(REASONS.deleteSelf)
      if (other && !target.userAsked) return refuse(REASONS.notAsked)
      if (target.wouldRemoveLastMain) return refuse(REASONS.deleteLastMain)
      return ALLOW

    case 'message_bot':
      return self ? refuse(REASONS.messageSelf) : ALLOW

    case 'interrupt_bot':
      if (!isUser && !isMain) return mainOnly('interrupt_bot')
      return self ? refuse(REASONS.interruptSelf) : ALLOW

    case 'stop_bot':
      if (!isUser && !isMain) return mainOnly('stop_bot')
      return self ? refuse(REASONS.stopSelf) : ALLOW

    case 'update_group':
      if (!isUser && !isMain && !target.callerIsGroupAdmin) return refuse(REASONS.updateGroup)
      if (unpaired && target.makesAdmin) return refuse(REASONS.notPaired)
      if (notPersonTurn && target.makesAdmin) return refuse(REASONS.personTurn)
      return ALLOW

    case 'delete_group':
      if (!isUser && !isMain) return mainOnly('delete_group')
      return target.roundRunning ? refuse(REASONS.roundRunning) : ALLOW

    case 'post_to_group':
      return isUser || isMain || target.callerIsGroupAdmin ? ALLOW : refuse(REASONS.postToGroup)

    case 'read_group_chat':
      return isUser || isMain || target.callerIsGroupMember || target.callerIsGroupAdmin ? ALLOW : refuse(REASONS.readGroupChat)

    case 'read_own_chat':
      return isUser || ownScope ? ALLOW : refuse(REASONS.readOtherChat)

    case 'write_own_memory':
      if (unpaired) return refuse(REASONS.notPaired)
      if (isUser || ownScope) return ALLOW
      if (!isMain) return refuse(REASONS.writeOtherMemory)
      return target.userAsked ? ALLOW : refuse(REASONS.notAsked)

    case 'write_team_memory':
      if (unpaired) return refuse(REASONS.notPaired)
      return isUser || isMain || target.callerAdminsAnyGroup ? ALLOW : refuse(REASONS.teamMemory)

    case 'plan_tasks':
      if (unpaired) return refuse(REASONS.notPaired)
      return isUser || isMain ? ALLOW : refuse(REASONS.planTasks)

    case 'claim_task':
      if (isUser) return refuse(REASONS.claimPerson)
      return target.assignedToOther ? refuse(REASONS.claimOther) : ALLOW

    case 'update_task':
      return isUser || isMain || target.callerCreatedTask || target.callerIsAssignee ? ALLOW : refuse(REASONS.updateTask)

    case 'submit_task':
      if (isUser) return refuse(REASONS.submitPerson)
      return target.callerIsAssignee ? ALLOW : refuse(REASONS.submitTask)

    case 'review_task':
      if (unpaired) return refuse(REASONS.notPaired)
      if (isUser) return ALLOW
      if (target.personReviews) return refuse(REASONS.reviewPerson)
      if (target.callerIsAssignee) return refuse(REASONS.reviewOwn)
      return isMain || target.callerCreatedTask ? ALLOW : refuse(REASONS.reviewTask)

    case 'cancel_task':
      // A Bot's shell on loopback is an unpaired client: it must not cancel others' work as the person.
      if (unpaired) return refuse(REASONS.notPaired)
      return isUser || isMain || target.callerCreatedTask ? ALLOW : refuse(REASONS.cancelTask)

    case 'reassign_task':
      if (unpaired) return refuse(REASONS.notPaired)
      return isUser || isMain || target.callerCreatedTask ? ALLOW : refuse(REASONS.reassignTask)

    case 'ask_person':
      if (isUser) return refuse(REASONS.askSelf)
      return isMain ? refuse(REASONS.askMain) : ALLOW

    case 'answer_task':
      if (!isUser) return refuse(REASONS.answerBot)
      return unpaired ? refuse(REASONS.notPaired) : ALLOW

    default: {
      // An action this build does not know (e.g. from an untyped HTTP body): fail closed.
      const unknown: never = action
      return refuse(`Unknown team action ${JSON.stringify(unknown)}: nobody may perform it. Use one of the team tools you were given.`)
    }
  }
}

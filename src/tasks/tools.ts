/**
 * The task tools: `submit_task` and `update_task` in a task Session (its own task by default),
 * `plan_tasks`, `list_tasks`, `review_task`, `cancel_task` where planning and review are offered.
 * Thin adapters: the service identifies the caller, asks `decide`, runs the transition and
 * refuses bad input whole; every answer is plain text ("Refused: …" for a refusal). Schemas are
 * kept short: each one is paid for on every request of every Session that is offered it.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { requesterOf } from '../core/caller.ts'
import { answer, textOutput } from '../core/refusal.ts'
import { clip } from '../core/text-limits.ts'
import { defineTeamTool } from '../dsh/team-tool.ts'
import { assignedBot, type Task, type TaskStatus } from './record.ts'
import type { BotTasks } from './service.ts'

/** What the tools use of the service. */
export type TaskToolHost = Pick<BotTasks, 'plan' | 'update' | 'submit' | 'review' | 'cancel' | 'list' | 'waitsFor' | 'askPerson'>

const ARTIFACTS = {
  type: 'array',
  description: 'What it produced.',
  items: {
    type: 'object',
    additionalProperties: false,
    properties: { kind: { type: 'string', enum: ['file', 'commit', 'branch', 'link', 'note'], required: true }, value: { type: 'string', required: true } },
  },
} as const

/** One task as a line: id, status, title, who works on it, what it waits for. */
export function summaryLine(task: Task, waits?: string): string {
  const who = task.assignee ? ` · ${assignedBot(task) ?? 'the user'}` : ' · unassigned'
  const attempt = task.attempts.length ? ` · attempt ${task.attempts.at(-1)!.n}` : ''
  return `${task.id} [${task.status}] ${clip(task.title, 120)}${who}${attempt}${waits ? ` · ${waits}` : ''}`
}

/** The tools of a task Session: its own task unless another is named. */
export function taskSessionTools(host: TaskToolHost, taskId: string): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'submit_task',
      description:
        'Hand this task in for review once its acceptance criteria are met, before the turn ends. In a project clone, commit your work on the task branch first.',
      parameters: { artifacts: ARTIFACTS, note: { type: 'string' } },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const task = await host.submit(requesterOf(exec), taskId, { artifacts: args.artifacts, note: args.note })
          if (task.status === 'working')
            return `The check failed, so attempt ${task.attempts.at(-1)?.n} starts in this Session with its output: ${task.worktree?.check?.summary ?? ''}. End your turn.`
          if (task.status === 'done') return `The check passed and ${task.id} was merged (no review asked). End your turn.`
          if (task.worktree?.review === false)
            return `The check passed but the merge conflicts; the next attempt starts in this Session with the paths. End your turn.\n${task.attempts.at(-1)?.reason ?? ''}`
          return `Submitted ${task.id} for review (attempt ${task.attempts.at(-1)?.n}). Its creator reviews it; you may end your turn.`
        })
      },
    }),
    defineTeamTool({
      name: 'update_task',
      description: 'Record progress on this task (a note, artifacts); it does not hand it in.',
      parameters: { artifacts: ARTIFACTS, note: { type: 'string' } },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const task = await host.update(requesterOf(exec), taskId, { artifacts: args.artifacts, note: args.note })
          return `Recorded on ${task.id} (${task.artifacts.length} artifacts).`
        })
      },
    }),
  ]
}

const STATUSES = ['open', 'blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'] as const

/** The planning and review tools (a Bot's own chat, where `decide` could allow them). */
export function ledgerTools(host: TaskToolHost): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'plan_tasks',
      description: "Plan up to 50 tasks. Each runs in its assignee's Session once its blocked_by (keys or task ids) are done; you review it.",
      parameters: {
        tasks: {
          type: 'array',
          required: true,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              key: { type: 'string' },
              title: { type: 'string', required: true },
              brief: { type: 'string', required: true, description: 'All the assignee sees.' },
              acceptance: { type: 'string' },
              assignee: { type: 'string' },
              blocked_by: { type: 'array', items: { type: 'string' } },
              project: { type: 'boolean', description: 'In a clone of the repo.' },
              check: { type: 'string', description: 'Test command; runs on a fresh checkout of the committed branch (no ignored files such as node_modules).' },
              review: { type: 'boolean', description: 'false: a passing check merges.' },
            },
          },
        },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const tasks = (args.tasks ?? []).map((t) => {
            const { blocked_by, ...rest } = t as Record<string, unknown>
            return blocked_by === undefined ? rest : { ...rest, blockedBy: blocked_by }
          })
          const { ids, tasks: made } = await host.plan(requesterOf(exec), { tasks })
          const byId = new Map(made.map((t) => [t.id, t]))
          return [`Planned ${ids.length} task(s):`, ...ids.map((id) => summaryLine(byId.get(id)!))].join('\n')
        })
      },
    }),
    defineTeamTool({
      name: 'list_tasks',
      description: 'Tasks, newest first.',
      parameters: { status: { type: 'string', enum: STATUSES } },
      output: textOutput,
      isConcurrencySafe: () => true,
      async execute(args) {
        return answer(async () => {
          const tasks = host.list({ status: args.status as TaskStatus | 'open' | undefined, limit: 50 })
          if (!tasks.length) return 'No tasks.'
          return tasks.map((t) => summaryLine(t, t.status === 'blocked' ? host.waitsFor(t) : undefined)).join('\n')
        })
      },
    }),
    defineTeamTool({
      name: 'review_task',
      description: 'Accept a submitted task or reject it (retried).',
      parameters: {
        task: { type: 'string', required: true },
        verdict: { type: 'string', enum: ['accept', 'reject'], required: true },
        reason: { type: 'string', description: 'Required to reject.' },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const changed = await host.review(requesterOf(exec), args.task, args.verdict, args.reason)
          return changed.map((t) => summaryLine(t)).join('\n')
        })
      },
    }),
    defineTeamTool({
      name: 'cancel_task',
      description: 'Cancel a task; tasks it blocks cannot start.',
      parameters: { task: { type: 'string', required: true }, reason: { type: 'string' } },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => summaryLine(await host.cancel(requesterOf(exec), args.task, args.reason)))
      },
    }),
    defineTeamTool({
      name: 'ask_person',
      description: 'Ask the user; the answer arrives later as a new turn.',
      parameters: {
        question: { type: 'string', required: true },
        choices: { type: 'array', items: { type: 'string' } },
        deadline_hours: { type: 'number' },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const input: Record<string, unknown> = { question: args.question }
          if (args.choices !== undefined) input.choices = args.choices
          if (args.deadline_hours !== undefined) input.deadlineHours = args.deadline_hours
          const task = await host.askPerson(requesterOf(exec), input)
          return `Asked as ${task.id}; it waits for the user until ${task.ask!.deadline}. End your turn: the answer arrives as a new turn.`
        })
      },
    }),
  ]
}

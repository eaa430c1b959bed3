// The offline demo's project (real git): a tiny repository made beside the demo home when missing,
// named as the team's project on the person's behalf through `nameProject` (the path the person's
// PUT takes, the same validation), and what the demo model does with it — on "make a plan to add a
// greeting module with tests" the Main Bot creates Coder and plans two project tasks with checks;
// Coder writes and commits the files in each task's clone and submits; the Main Bot accepts each.
// Deliberately narrow: fixed files and wording; a team that has a project keeps it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Config, projectForbiddenFolders, resolvePaths } from '../src/config.ts'
import { nameProject, PROJECT_FILE } from '../src/tasks/project.ts'
import { GitRunner } from '../src/worktrees/git.ts'
import type { Forbidden } from '../src/worktrees/policy.ts'
import { lastToolResults, offersTool } from './scripted-model/format.ts'
import type { RecordedRequest, Reply } from './scripted-model/format.ts'

const CODER = 'Coder'
export const GREETING_PLAN = /^(?:please\s+)?make\s+a\s+plan\s+to\s+add\s+a\s+greeting\s+module\s+with\s+tests[.!]?$/i
const MODULE = 'export function greet(name) {\n  return `Hello, ${name}!`\n}\n'
const TEST = [
  "import { test } from 'node:test'",
  "import assert from 'node:assert/strict'",
  "import { greet } from './greeting.mjs'",
  '',
  "test('greet says hello by name', () => {",
  "  assert.equal(greet('Ada'), 'Hello, Ada!')",
  '})',
  '',
].join('\n')

/** The two project tasks of the greeting plan, both for Coder, the tests after the module. */
export const GREETING_TASKS = [
  {
    key: 'module',
    title: 'Greeting module',
    brief: 'Add greeting.mjs exporting greet(name), which returns "Hello, <name>!". Commit it in your clone.',
    acceptance: 'greet("Ada") returns "Hello, Ada!".',
    assignee: CODER,
    project: true,
    check: `node --input-type=module -e "import { greet } from './greeting.mjs'; if (greet('Ada') !== 'Hello, Ada!') process.exit(1)"`,
  },
  {
    key: 'tests',
    title: 'Tests for the greeting module',
    brief: 'Add greeting.test.mjs with a node:test test of greet. Commit it in your clone.',
    acceptance: 'node --test passes.',
    assignee: CODER,
    blocked_by: ['module'],
    project: true,
    check: 'node --test',
  },
]

/** What Coder runs in a task's clone: write the task's file and commit it (the Bot's own git). */
function workFor(text: string): string | undefined {
  const file = /^Task task-\d+: Greeting module$/m.test(text)
    ? ['greeting.mjs', MODULE]
    : /^Task task-\d+: Tests for the greeting module$/m.test(text)
      ? ['greeting.test.mjs', TEST]
      : undefined
  if (!file) return undefined
  const quoted = `'${file[1]!.replace(/'/g, `'\\''`)}'`
  return `printf '%s' ${quoted} > ${file[0]} && git add ${file[0]} && git -c user.name=${CODER} -c user.email=coder@bot-team.invalid commit --no-verify -qm 'Add ${file[0]}' && git log --oneline -1`
}

/** The demo's reply when a step of the greeting plan is due, else undefined. */
export function projectStep(req: RecordedRequest, said: string): Reply | undefined {
  const results = lastToolResults(req)
  const done = (tool: string) => results.find((r) => r.name === tool)
  // Coder in a greeting task's Session: write and commit, then hand it in.
  const work = offersTool(req, 'submit_task') ? workFor(said) : undefined
  if (work !== undefined) {
    if (done('submit_task')) return { text: 'Handed in.' }
    const ran = done('bash')
    if (ran) return { toolCalls: [{ name: 'submit_task', args: { note: ran.text.slice(0, 500) } }] }
    if (offersTool(req, 'bash')) return { toolCalls: [{ name: 'bash', args: { command: work, description: 'write and commit the file' } }] }
  }
  // The Main Bot, told a task waits for its review: accept it (merging it).
  const review = /^Task (task-\d+) ".*" was submitted by .* and waits for your review/s.exec(said)
  if (review && offersTool(req, 'review_task')) {
    const reviewed = done('review_task')
    if (reviewed) return { text: `I reviewed ${review[1]}: ${reviewed.text}` }
    return { toolCalls: [{ name: 'review_task', args: { task: review[1]!, verdict: 'accept' } }] }
  }
  // The Main Bot, asked for the greeting plan: create Coder (a refusal if it exists is fine), then plan.
  if (!GREETING_PLAN.test(said.trim()) || !offersTool(req, 'plan_tasks')) return undefined
  const planned = done('plan_tasks')
  if (planned) return { text: `I called \`plan_tasks\`. It said:\n\n${planned.text.slice(0, 2000)}` }
  if (done('manage_bot') || !offersTool(req, 'manage_bot'))
    return { text: 'Here is the plan.', toolCalls: [{ name: 'plan_tasks', args: { tasks: GREETING_TASKS } }] }
  return { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: CODER, role: 'writes code', instructions: 'You write code.' } }] }
}

/**
 * Make the demo repository in `repo` (when missing or empty: `main` with a README) and name it as
 * the project of the team folder `teamDir` unless it has one. Returns what was done, in a sentence.
 */
export async function prepareDemoProject(repo: string, teamDir: string, forbidden: readonly Forbidden[], now = new Date().toISOString()): Promise<string> {
  if (existsSync(join(teamDir, PROJECT_FILE))) return 'the team has a project already; the demo leaves it'
  if (!existsSync(join(repo, '.git'))) {
    if (existsSync(repo) && readdirSync(repo).length) return `${repo} holds files but no repository; the demo names no project`
    mkdirSync(repo, { recursive: true })
    const home = join(teamDir, 'git-home')
    mkdirSync(home, { recursive: true, mode: 0o700 })
    const git = new GitRunner({ emptyHome: home })
    await git.run(['init', '-q', '-b', 'main'], { cwd: repo })
    writeFileSync(
      join(repo, 'README.md'),
      '# Greeting\n\nThe offline demo\'s repository: ask the Main Bot to "make a plan to add a greeting module with tests".\n',
    )
    await git.run(['add', 'README.md'], { cwd: repo })
    await git.run(['commit', '-q', '-m', 'Start the greeting demo'], { cwd: repo })
  }
  const r = await nameProject(teamDir, { path: repo, branch: 'main' }, forbidden, now)
  return r.ok ? `the demo repository ${r.project.path} is the team's project (branch main)` : r.problem
}

/**
 * The demo for the DSH home `home`: its clones in `<beside>/worktrees` (the web profile's patch,
 * written only while it has no entries) and `<beside>/greeting-demo` as the project. Returns a sentence.
 */
export async function setUpDemo(home: string, beside: string): Promise<string> {
  const patch = join(home, 'profiles', 'web', 'cordis.patch.yml')
  // DSH's own profile template is an empty list (`[]` under comments): that counts as not written.
  if (
    !existsSync(patch) ||
    readFileSync(patch, 'utf8')
      .replace(/^\s*#.*$/gm, '')
      .trim() === '[]'
  ) {
    mkdirSync(join(home, 'profiles', 'web'), { recursive: true })
    const text = `# Written by npm start for the offline demo: project clones stay beside the home.\n- id: bot-team\n  config:\n    worktrees: ${JSON.stringify(join(beside, 'worktrees'))}\n`
    writeFileSync(patch, text)
  }
  const paths = resolvePaths(Config.parse({}), (...segments) => join(home, ...segments))
  return prepareDemoProject(join(beside, 'greeting-demo'), paths.dir, projectForbiddenFolders(home, paths))
}

// The docs cannot drift silently. Read from the code's own registrations — the team's tools
// (`TEAM_TOOLS`, the only names the roster registers, and the arguments a Main Bot's own chat is
// offered on the real DSH core), the router's `ROUTES`, the plugin's zod `Config` — every tool,
// route and config key the Markdown names exists, and every one the code has is named. architecture.md embeds the graph
// `npm run graph` draws from the layer rules and stays within 300 lines; every repository path
// and relative link in the docs exists.
//
// What counts as a mention (inside `backticks`, outside fenced blocks): a snake_case word, or one
// followed by `(`, names a tool, a tool's argument or an action of the authority table
// (`TEAM_ACTIONS`); a span holding `/bot-team…` names a route
// (`<x>` is any segment, `…` a prefix, a query is ignored, a method before it must match); a dotted
// span starting with a config section (`team.workBudget`) names a config key.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { node22, root } from '../../../scripts/pack.ts'
import { Config } from '../../../src/config.ts'
import { TEAM_ACTIONS } from '../../../src/core/authority.ts'
import { TEAM_TOOLS } from '../../../src/core/offer.ts'
import { ROUTES } from '../../../src/web/routes.ts'
import { prompt, startDshHost, startTeamHost, runTurn } from '../../support/dsh-host.ts'

function markdownFiles(): string[] {
  const found = ['README.md', 'bench/README.md']
  for (const dir of ['docs', 'src']) {
    const walk = (d: string) => {
      for (const name of readdirSync(join(root, d))) {
        const path = join(d, name)
        if (statSync(join(root, path)).isDirectory()) walk(path)
        else if (name.endsWith('.md')) found.push(path)
      }
    }
    walk(dir)
  }
  return found
}

/** Every `code span` of every doc, with where it is (fenced blocks left out). */
function spans(): { file: string; text: string }[] {
  return markdownFiles().flatMap((file) => {
    const body = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '')
    return [...body.matchAll(/`([^`\n]+)`/g)].map((m) => ({ file, text: m[1]!.trim() }))
  })
}

/** The plugin's tools and their arguments, as DSH offers them to a Main Bot's own chat. */
async function registeredTools(): Promise<{ tools: string[]; args: Set<string> }> {
  const plain = await startDshHost({ fallback: { text: 'ok' } })
  await runTurn(plain, 'hello')
  const dsh = new Set(plain.adapter.model.loopRequests().at(-1)!.toolNames)
  await plain.dispose()
  const team = await startTeamHost({ fallback: { text: 'ok' } })
  try {
    const main = team.ctx.botRoster.bots().find((b) => b.main)!
    const agent = await team.ctx.botRoster.agentOf(main.id)
    await prompt(team, agent, 'hello')
    const request = team.adapter.model
      .loopRequests()
      .filter((r) => r.sessionId === String(agent.id))
      .at(-1)!
    const tools = request.tools.filter((t) => !dsh.has(t.name))
    const args = new Set<string>()
    const walk = (schema: unknown) => {
      const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties
      for (const [name, inner] of Object.entries(properties ?? {})) {
        args.add(name)
        walk(inner)
      }
    }
    for (const t of tools) walk(t.parameters)
    return { tools: tools.map((t) => t.name).sort(), args }
  } finally {
    await team.dispose()
  }
}

/** Every key path of the plugin's config (`team.workBudget`, `writer`), from its zod schema. */
function configKeys(): string[] {
  const keys: string[] = []
  const walk = (schema: { properties?: Record<string, unknown> }, prefix: string) => {
    for (const [name, inner] of Object.entries(schema.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name
      keys.push(path)
      walk(inner as { properties?: Record<string, unknown> }, path)
    }
  }
  walk(z.toJSONSchema(Config, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> }, '')
  return keys
}

const SNAKE = /^([a-z]+(?:_[a-z]+)+)(?:\(.*\))?$/
const METHOD = /^(GET|POST|PUT|PATCH|DELETE)\s+/

/** A route mention as a method and segments (`*` any segment, a trailing `**` any rest). */
function routeMention(text: string): { method?: string; parts: string[] } | undefined {
  const at = /(?:^|\s)\/bot-team(?=$|[/?#…\s])/.exec(text)?.index
  if (at === undefined) return undefined
  const method = METHOD.exec(text.slice(0, at + 1))?.[1]
  let path = /\/bot-team[^\s`,;)]*/.exec(text.slice(at))![0]
  const prefix = /…$/.test(path)
  path = path
    .replace(/…$/, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => (/^<.*>$|^:/.test(p) ? '*' : p))
  return { ...(method ? { method } : {}), parts: prefix ? [...parts, '**'] : parts }
}

function matches(mention: { method?: string; parts: string[] }, [method, path]: readonly [string, string]): boolean {
  if (mention.method && mention.method !== method) return false
  const row = path.split('/').slice(1)
  const open = mention.parts.at(-1) === '**'
  const parts = open ? mention.parts.slice(0, -1) : mention.parts
  if (open ? row.length < parts.length : row.length !== parts.length) return false
  return parts.every((p, i) => p === '*' || p === row[i] || /^<.*>$/.test(row[i]!))
}

describe('the docs', () => {
  it('name every team tool, and no tool or argument that does not exist', async () => {
    const { tools: offered, args } = await registeredTools()
    const tools = Object.keys(TEAM_TOOLS).sort()
    // What a Main Bot is offered are team tools (the derivation found them), and only those.
    expect(offered.length).toBeGreaterThan(0)
    expect(offered.filter((t) => !tools.includes(t))).toEqual([])
    const mentioned = spans().flatMap((s) => {
      const m = SNAKE.exec(s.text)
      return m ? [{ ...s, name: m[1]! }] : []
    })
    const actions: readonly string[] = TEAM_ACTIONS
    const unknown = mentioned.filter((m) => !tools.includes(m.name) && !args.has(m.name) && !actions.includes(m.name)).map((m) => `${m.file}: ${m.name}`)
    expect([...new Set(unknown)]).toEqual([])
    // A one-word tool (`remember`) is named by a span of just that word; it is not checked the other way.
    const named = new Set(spans().map((s) => /^([a-z_]+)(?:\(.*\))?$/.exec(s.text)?.[1]))
    expect(tools.filter((t) => !named.has(t))).toEqual([])
  })

  it('name every route of the router, with its method, and no route it does not serve', () => {
    const mentions = spans().flatMap((s) => {
      const m = routeMention(s.text)
      return m ? [{ ...s, mention: m }] : []
    })
    const unknown = mentions.filter((m) => !ROUTES.some((r) => matches(m.mention, r))).map((m) => `${m.file}: ${m.text}`)
    expect([...new Set(unknown)]).toEqual([])
    const unnamed = ROUTES.filter((r) => !mentions.some((m) => m.mention.method === r[0] && matches(m.mention, r))).map((r) => r.join(' '))
    expect(unnamed).toEqual([])
  })

  it('name every config key in docs/configuration.md, and no config key that does not exist', () => {
    const keys = configKeys()
    const sections = keys.filter((k) => !k.includes('.'))
    const dotted = new RegExp(`^(${sections.join('|')})\\.[A-Za-z][\\w.]*$`)
    const unknown = spans()
      .filter((s) => dotted.test(s.text) && !/\.(ts|md|json|jsonl|sqlite|mjs|yml)$/.test(s.text) && !keys.includes(s.text))
      .map((s) => `${s.file}: ${s.text}`)
    expect([...new Set(unknown)]).toEqual([])
    const reference = new Set(
      spans()
        .filter((s) => s.file === 'docs/configuration.md')
        .map((s) => s.text),
    )
    expect(keys.filter((k) => !reference.has(k))).toEqual([])
  })

  it('name only files and folders of the repository that exist, and link only to ones that do', () => {
    const missing = spans()
      .filter((s) => /^(src|tests|scripts|bench|docs|bin)\/[\w./-]+$/.test(s.text) && !existsSync(join(root, s.text.replace(/\/$/, ''))))
      .map((s) => `${s.file}: ${s.text}`)
    for (const file of markdownFiles()) {
      const body = readFileSync(join(root, file), 'utf8')
      for (const [, target] of body.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target!.replace(/#.*$/, '')
        if (!path || /^[a-z]+:/.test(path)) continue
        if (!existsSync(join(root, dirname(file), path))) missing.push(`${file}: (${target})`)
      }
    }
    expect(missing).toEqual([])
  })

  it('embed in architecture.md the graph `npm run graph` draws from the layer rules, within 300 lines', () => {
    const drawn = spawnSync(node22, [join(root, 'scripts', 'graph.ts')], { cwd: root, encoding: 'utf8' })
    expect(drawn.status).toBe(0)
    const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
    expect(architecture).toContain(`\`\`\`mermaid\n${drawn.stdout.trim()}\n\`\`\``)
    expect(architecture.split('\n').length).toBeLessThanOrEqual(300)
  })
})

// The handoff package keeps what the part's latest messages and tool errors name, checked in code:
// a model-written note that drops the paths, URLs, ids, quoted names and error lines gets them
// appended word for word under their headings, and the package still goes through the masker.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { NOTE_HEADINGS } from '../../../src/context/note.ts'
import { disposedAfterEach, prompt, startTeamHost } from '../../support/dsh-host.ts'

const track = disposedAfterEach()
const user = { kind: 'user' } as const
const SECRET = 'Zq81-pasted-4406-value'
/** A note with every heading and none of the facts. */
const BLAND_NOTE = NOTE_HEADINGS.map((h) => `## ${h}\nThe user and I worked on the build.`).join('\n\n')
const filler = (tag: string) => `${tag} ${'we talked about the weather and lunch plans at length '.repeat(24)}`

/** "ok" to everything; "build it" makes the Bot call the failing `build` tool once. */
const bot = (req: RecordedRequest): Reply => {
  if (lastToolResults(req).length) return { text: 'the build failed' }
  return userTextsSinceLastAssistant(req).join('\n').includes('build it') ? { toolCalls: [{ name: 'build', args: {} }] } : { text: 'ok' }
}

/** The text of the section under `## heading` in a package's note. */
const section = (pkg: string, heading: string) => {
  const note = pkg.slice(pkg.indexOf('## Handoff note'))
  const at = note.indexOf(`## ${heading}\n`)
  const next = note.indexOf('\n## ', at + 3)
  return note.slice(at, next < 0 ? undefined : next)
}

describe('handoff notes checked in code', () => {
  it('a note that drops the latest messages\u2019 paths, URLs, ids, quoted names and errors gets them appended verbatim under their headings, masked', async () => {
    const host = track(await startTeamHost({ contextWindow: 8_000, fallback: bot, note: { text: BLAND_NOTE } }))
    host.ctx.tools.register(
      defineTool({
        name: 'build',
        description: 'runs the build',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v: string) => [{ type: 'text', text: v }] },
        async execute() {
          throw new Error("ENOENT: no such file or directory, open '/srv/app/config/prod.yaml'")
        },
      }),
    )
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    // The facts sit in the middle of a long message, so the package's list of earlier messages (clipped) loses them.
    await prompt(
      host,
      agent,
      [
        filler('first'),
        'The failing job is PROJ-4821 at https://ci.example.com/job/42/console, last good commit 9fceb02d0ae598e95dc970b74767f19372d61af8,',
        'the file is src/billing/invoice.ts and the customer is called "Blue Falcon".',
        `TypeError: Cannot read properties of undefined (reading 'id') token=${SECRET}`,
        filler('then'),
      ].join('\n'),
    )
    await prompt(host, agent, 'build it')
    for (const tag of ['two', 'three', 'four']) await prompt(host, agent, filler(tag))
    await host.ctx.botSecrets.set('PASTED', { value: SECRET, scope: 'all' })

    await host.ctx.botContext.newPart(ada.id)
    const pkg = readFileSync(join(host.home, 'bot', `context/${ada.id}/part-2.md`), 'utf8')
    const kept = 'Kept word for word from the latest messages and tool errors (checked in code):'
    expect(section(pkg, 'Facts to keep')).toContain(`${kept}\n- PROJ-4821\n- 9fceb02d0ae598e95dc970b74767f19372d61af8\n- "Blue Falcon"`)
    expect(section(pkg, 'Where to look')).toContain(`${kept}\n- https://ci.example.com/job/42/console\n- src/billing/invoice.ts`)
    const threads = section(pkg, 'Open threads')
    expect(threads).toContain(`- TypeError: Cannot read properties of undefined (reading 'id') token=[secret:PASTED]`)
    expect(threads).toMatch(/- .*ENOENT: no such file or directory, open '\/srv\/app\/config\/prod\.yaml'/)
    expect(pkg).not.toContain(SECRET)
    expect(host.ctx.botContext.stats.factsKept).toBeGreaterThanOrEqual(7)
    // What the check adds to the new part's first message (its cached prefix from then on).
    const blocks = pkg
      .split(kept)
      .slice(1)
      .map((rest) => kept.length + 1 + rest.split(/\n(?:## |\n)/)[0]!.length)
    console.log(
      `handoff facts kept: ${host.ctx.botContext.stats.factsKept} facts, +${blocks.reduce((a, b) => a + b, 0)} characters (${blocks.length} blocks) in a ${pkg.length}-character package`,
    )
  })

  it('a note that keeps every fact gets nothing appended', async () => {
    const facts = 'PROJ-77 is tracked at https://ci.example.com/job/7 and src/app.ts'
    const note = NOTE_HEADINGS.map((h) => `## ${h}\n${h === 'Facts to keep' ? facts : 'nothing new'}`).join('\n\n')
    const host = track(await startTeamHost({ contextWindow: 8_000, fallback: { text: 'ok' }, note: { text: note } }))
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    await prompt(host, agent, `${filler('a')}\n${facts}\n${filler('b')}`)
    for (const tag of ['two', 'three']) await prompt(host, agent, filler(tag))
    await host.ctx.botContext.newPart(ada.id)
    const pkg = readFileSync(join(host.home, 'bot', `context/${ada.id}/part-2.md`), 'utf8')
    expect(pkg).not.toContain('checked in code')
    expect(host.ctx.botContext.stats.factsKept).toBe(0)
  })
})

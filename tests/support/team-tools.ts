// The team's tools, derived from what the plugin registers — never a hand-written list or name
// pattern, so a tool added to the plugin is covered by every "no team tools here" check at once.
//
// Derivation (in-process, real DSH core, scripted model): the tool names a Main Bot's and another
// Bot's own chats are offered on a host with the plugin (a few tools are for the other Bots only),
// minus the names a Session is offered on the same DSH core without the plugin. The baseline comes from a host without the plugin on purpose: taking it
// from a plain Session of the team host would hide any tool the plugin wrongly put there.
// Computed once per test file (each file runs in its own module scope) and cached.
import { startDshHost, startTeamHost, prompt, runTurn } from './dsh-host.ts'

let cached: Promise<{ team: readonly string[]; dsh: readonly string[] }> | undefined

async function derive(): Promise<{ team: readonly string[]; dsh: readonly string[] }> {
  const plain = await startDshHost({ fallback: { text: 'ok' } })
  let dsh: string[]
  try {
    await runTurn(plain, 'hello')
    dsh = plain.adapter.model.loopRequests().at(-1)!.toolNames
  } finally {
    await plain.dispose()
  }
  const team = await startTeamHost({ fallback: { text: 'ok' } })
  try {
    const main = team.ctx.botRoster.bots().find((b) => b.main)!
    const other = await team.ctx.botRoster.create({ kind: 'user' }, { name: 'Probe' })
    const offered = new Set<string>()
    for (const botId of [main.id, other.id]) {
      const agent = await team.ctx.botRoster.agentOf(botId)
      await prompt(team, agent, 'hello')
      const own = team.adapter.model
        .loopRequests()
        .filter((r) => r.sessionId === String(agent.id))
        .at(-1)!
      for (const n of own.toolNames) offered.add(n)
    }
    const names = [...offered].filter((n) => !dsh.includes(n)).sort()
    if (names.length === 0) throw new Error('the Main Bot was offered no team tools: the derivation would check nothing')
    return { team: names, dsh: [...dsh].sort() }
  } finally {
    await team.dispose()
  }
}

/** Every tool the plugin offers a Main Bot's or another Bot's own chat and DSH alone does not offer (sorted). */
export async function teamToolNames(): Promise<readonly string[]> {
  cached ??= derive()
  return (await cached).team
}

/** The tools the in-process DSH core offers a Session without the plugin (sorted). */
export async function dshToolNames(): Promise<readonly string[]> {
  cached ??= derive()
  return (await cached).dsh
}

/** The team tools among `names`, sorted (what a "no team tools" check expects to be empty). */
export async function teamToolsIn(names: readonly string[]): Promise<string[]> {
  const team = await teamToolNames()
  return names.filter((n) => team.includes(n)).sort()
}

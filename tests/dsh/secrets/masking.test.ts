// Where botSecrets masks, on the real DSH core in-process: tool results of any tool in any
// Session (prepended tools/post-execute), the person's pasted input (agent/pre-step — DSH keeps
// the raw text in agent/inbox/spliced first, named here), the last check on outgoing requests
// (llm/stream), text the plugin builds (deliveries, room posts), memory's refusal; and the shell
// registry kept consistent when names come and go, or the file is broken (bash keeps working).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { disposedAfterEach, prompt, runTurn, startTeamHost } from '../../support/dsh-host.ts'
import { quiesce, toolResults, userMessages } from '../delivery/helpers.ts'
import { roomLog, settle } from '../rooms/helpers.ts'
import { bash } from './helpers.ts'
import { lastToolResults, lastUserText, type Rule } from '../../../scripts/scripted-model/format.ts'

const track = disposedAfterEach()
const VALUE = 'tok_MaskingCase_0123456789abcdef'
const P = '[secret:API_KEY]'
const user = { kind: 'user' } as const
const runs =
  (command: string): Rule =>
  (req) =>
    lastToolResults(req).length ? { text: 'done' } : /\brun\b/.test(lastUserText(req) ?? '') ? bash(command) : { text: 'ok' }

describe('masking', () => {
  it("masks any tool's result in any Session before DSH logs it or the model reads it", async () => {
    const host = track(await startTeamHost({ steps: [{ toolCalls: [{ name: 'echo_value', args: {} }] }, { text: 'done' }] }))
    await host.ctx.botSecrets.set('API_KEY', { value: VALUE, scope: 'all' })
    host.ctx.tools.register(
      defineTool({
        name: 'echo_value',
        description: 'returns a value',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v: string) => [{ type: 'text', text: v }] },
        async execute() {
          return `value=${VALUE} json=${JSON.stringify({ k: VALUE })}`
        },
      }),
    )
    const agent = await runTurn(host, 'go')
    expect(toolResults(agent, 'echo_value')).toEqual([`value=${P} json={"k":"${P}"}`])
    expect(JSON.stringify(agent.session.events)).not.toContain('MaskingCase')
    expect(JSON.stringify(host.adapter.requests)).not.toContain('MaskingCase')
  })

  it("masks a tool's structured value, so the logged result's meta (presentationMeta) is masked too, even when another listener replaced its content", async () => {
    const host = track(await startTeamHost({ steps: [{ toolCalls: [{ name: 'find_value', args: {} }] }, { text: 'done' }] }))
    await host.ctx.botSecrets.set('API_KEY', { value: VALUE, scope: 'all' })
    host.ctx.tools.register(
      defineTool({
        name: 'find_value',
        description: 'returns a structured value',
        parameters: {},
        output: {
          schema: { type: 'object', properties: { line: { type: 'string' } }, additionalProperties: false },
          render: (_a, v: any) => [{ type: 'text', text: `found: ${v.line}` }],
          presentationMeta: (_a, v: any) => ({ lines: [v.line] }),
        },
        async execute() {
          return { line: `key ${VALUE}` } as never
        },
      }),
    )
    // Another listener (registered after the plugin, so inside it) replaces the content.
    host.ctx.on('tools/post-execute', async (_exec, result, next) => {
      const d = await next()
      return d.kind === 'accept' && d.value === undefined ? { ...d, content: [{ type: 'text' as const, text: `page: ${JSON.stringify(result.value)}` }] } : d
    })
    const agent = await runTurn(host, 'go')
    const logged = agent.session.events.filter((e) => e.type === 'tool/result').map((e) => e.data as any)
    expect(logged[0].meta).toEqual({ lines: [`key ${P}`] })
    expect(toolResults(agent, 'find_value')).toEqual([`found: key ${P}`])
    expect(JSON.stringify(agent.session.events)).not.toContain('MaskingCase')
  })

  it("masks a pasted value in the person's message (user/message), while DSH keeps it raw in agent/inbox/spliced", async () => {
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }))
    await host.ctx.botSecrets.set('API_KEY', { value: VALUE, scope: 'all' })
    const agent = await runTurn(host, `my key is ${VALUE}, use it`)
    expect(userMessages(agent).map((m) => m.text)).toContain(`my key is ${P}, use it`)
    const raw = agent.session.events.filter((e) => JSON.stringify(e.data).includes('MaskingCase')).map((e) => e.type)
    expect(raw).toEqual(['agent/inbox/spliced'])
    expect(JSON.stringify(host.adapter.requests)).not.toContain('MaskingCase')
  })

  it('llm/stream last check: a request that still holds a value reaches the model masked (verified on rc.8)', async () => {
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }))
    await host.ctx.botSecrets.set('API_KEY', { value: VALUE, scope: 'all' })
    const before = host.ctx.botSecrets.stats().requestsRewritten
    let answer = ''
    for await (const chunk of host.ctx.llm.stream({
      provider: 'mock',
      model: 'mock',
      system: `sys ${VALUE}`,
      messages: [createUserMessage({ content: [{ type: 'text', text: `side call with ${VALUE}` }], source: { kind: 'user' } })],
    })) {
      if (chunk.type === 'text-delta') answer += chunk.text
    }
    expect(answer).toBe('ok')
    const last = host.adapter.requests.at(-1)!
    expect(last.system).toBe(`sys ${P}`)
    expect(last.messages.map((m) => m.text)).toContain(`side call with ${P}`)
    expect(JSON.stringify(host.adapter.requests)).not.toContain('MaskingCase')
    expect(host.ctx.botSecrets.stats().requestsRewritten).toBe(before + 1)
  })

  it("masks message_bot bodies (outbox and the target's log) and room posts; memory refuses an entry holding the value", async () => {
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }))
    await host.ctx.botSecrets.set('API_KEY', { value: VALUE, scope: 'all' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/mock' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/mock' })
    const sent = await host.ctx.botDelivery.send({ kind: 'user' }, { to: 'Ada', kind: 'message', body: `use ${VALUE} please` })
    expect(sent.delivery.body).toBe(`use ${P} please`)
    await quiesce(host)
    expect(userMessages(await host.ctx.botRoster.agentOf(ada.id)).some((m) => m.text.includes(`use ${P} please`))).toBe(true)
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
    await host.ctx.botRooms.post(user, 'G', `the key is ${Buffer.from(VALUE).toString('base64')}`)
    await settle(host, 'G')
    expect(JSON.stringify(host.ctx.botStore.state)).not.toContain('MaskingCase')
    // A value the secret-like filter would let through (plain words) is refused because it is saved.
    await host.ctx.botSecrets.set('MOTTO', { value: 'violet harbor lantern seventeen', scope: 'all' })
    await expect(host.ctx.botMemory.remember(user, { text: 'Our motto is violet harbor lantern seventeen', bot: 'Ada' })).rejects.toThrow(
      /holds the value of a saved secret/,
    )
    expect(await host.ctx.botMemory.remember(user, { text: 'Our motto is kept as a team secret', bot: 'Ada' })).toMatch(/^Saved/)
    // Masked before DSH queued them: not even agent/inbox/spliced holds the value.
    for (const a of host.ctx.agents.list()) expect(JSON.stringify(a.session.events)).not.toContain('MaskingCase')
    expect(roomLog(host, 'G')).not.toContain('MaskingCase')
  })
})

describe('truncated shell output', () => {
  it("masks every whole value in a truncated result (a piece the cut left at its edge is not a value and stays as it is); DSH's own full-output file (temp folder, outside the home) keeps it raw", async () => {
    const value = 'cut-value-0123456789-e' // 23 bytes a line: the cut falls inside a value
    const host = track(await startTeamHost({ fallback: runs('for i in $(seq 1 40000); do printf "%s\\n" "$DSH_SECRET_A_ONE"; done') }, { shell: true }))
    await host.ctx.botSecrets.set('A_ONE', { value, scope: 'all' })
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots()[0]!.id)
    await prompt(host, agent, 'run it')
    const result = toolResults(agent, 'bash').at(-1)!
    const full = /\[output truncated; full output: (\S+)\]/.exec(result)?.[1]
    expect(full).toBeTruthy()
    expect(result).not.toContain(value)
    expect(result).toContain('[secret:A_ONE]\n[secret:A_ONE]\n')
    expect(readFileSync(full!, 'utf8')).toContain(value) // named in docs/limitations.md
    expect(full!.startsWith(host.home)).toBe(false)
  })
})

describe('the shell registry', () => {
  it('re-registers when names come and go: every name saved is in the shell, a deleted one is gone, bash keeps working', async () => {
    const host = track(await startTeamHost({ fallback: runs('echo "[${DSH_SECRET_A_ONE:-none}] [${DSH_SECRET_B_TWO:-none}]"') }, { shell: true }))
    const main = host.ctx.botRoster.bots()[0]!
    const agent = await host.ctx.botRoster.agentOf(main.id)
    const run = async () => {
      await prompt(host, agent, 'run it')
      return toolResults(agent, 'bash').at(-1)
    }
    expect(await run()).toBe('[none] [none]\n')
    await host.ctx.botSecrets.set('A_ONE', { value: 'first-value-1', scope: 'all' })
    expect(await run()).toBe('[[secret:A_ONE]] [none]\n')
    await host.ctx.botSecrets.set('B_TWO', { value: 'second-value-2', scope: [main.id] })
    expect(await run()).toBe('[[secret:A_ONE]] [[secret:B_TWO]]\n')
    await host.ctx.botSecrets.delete('A_ONE')
    expect(await run()).toBe('[none] [[secret:B_TWO]]\n')
  })

  it('a broken secrets.json serves no secret, refuses changes, and leaves bash working', async () => {
    const first = await startTeamHost({ fallback: { text: 'ok' } })
    await first.ctx.botSecrets.set('A_ONE', { value: 'first-value-1', scope: 'all' })
    const home = first.home
    await first.ctx.fiber.dispose()
    writeFileSync(join(home, 'bot', 'secrets.json'), '{"version":1,"secrets":[{"name":"A_ONE","value":"first-value-1"')
    const host = track(await startTeamHost({ fallback: runs('echo "[${DSH_SECRET_A_ONE:-none}] ok"') }, { home, shell: true }))
    expect(host.ctx.botSecrets.status().problem).toMatch(/secrets\.json is not valid JSON; no secret is served or saved/)
    expect(host.ctx.botSecrets.status().problem).not.toContain('first-value')
    await expect(host.ctx.botSecrets.set('B_TWO', { value: 'second-value-2', scope: 'all' })).rejects.toThrow(/not valid JSON/)
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots()[0]!.id)
    await prompt(host, agent, 'run it')
    expect(toolResults(agent, 'bash').at(-1)).toBe('[none] ok\n')
  })
})

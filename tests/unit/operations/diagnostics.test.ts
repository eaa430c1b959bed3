// botDiagnostics in a bare Cordis context on a temp bot folder: scrubbing (a saved secret through
// the secrets service's masker, an API key through the generic shapes), the error's stack, size
// rotation, and mode 0600; and `warn` (terminal line, Cordis logger, a diagnostics line, each masked).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Message } from '@deepseek-ai/cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { warn } from '../../../src/dsh/warn.ts'
import { BotDiagnostics, DIAGNOSTICS_FILE, ROTATED_FILE } from '../../../src/operations/diagnostics.ts'
import { scrubText } from '../../../src/operations/scrub.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const SAVED = 'correct-horse-battery-staple-42'
const API_KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789'

async function mount(opts: { maxBytes?: number; secrets?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bot-team-diag-'))
  dirs.push(dir)
  const ctx = new Context()
  // The secrets service's interface (`mask`), standing in for that service: it masks the
  // person's saved values wherever they appear.
  if (opts.secrets) {
    ctx.provide('botSecrets' as never)
    ctx.set('botSecrets' as never, { mask: (text: string) => text.split(SAVED).join('[secret:db-password]') } as never)
  }
  await ctx.plugin(BotDiagnostics, { dir, ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}) })
  return { ctx, dir, diagnostics: ctx.botDiagnostics }
}

describe('botDiagnostics', () => {
  it('a forced error containing a saved secret and an API key is written scrubbed, with its stack', async () => {
    const { ctx, dir, diagnostics } = await mount({ secrets: true })
    let forced: Error
    try {
      throw new Error(`connect failed: password=${SAVED} key ${API_KEY}`)
    } catch (error) {
      forced = error as Error
    }
    diagnostics.note({ kind: 'error', message: `while calling with ${API_KEY}`, error: forced!, data: { header: `Bearer ${API_KEY}`, secret: SAVED } })
    const text = await diagnostics.read()
    expect(text).not.toContain(SAVED)
    expect(text).not.toContain(API_KEY)
    const line = JSON.parse(text.trim().split('\n').at(-1)!)
    expect(line).toMatchObject({ level: 'error', kind: 'error', message: 'while calling with [redacted]' })
    expect(line.error).toBe('Error: connect failed: password=[secret:db-password] key [redacted]')
    expect(line.stack).toMatch(/diagnostics\.test\.ts/)
    expect(line.data).toEqual({ header: 'Bearer [redacted]', secret: '[secret:db-password]' })
    expect(statSync(join(dir, DIAGNOSTICS_FILE)).mode & 0o777).toBe(0o600)
    await ctx.fiber.dispose()
  })

  it('without a secrets service the generic key shapes are still scrubbed', async () => {
    const { ctx, diagnostics } = await mount()
    diagnostics.note({ kind: 'refusal', message: `token ghp_${'a'.repeat(36)} in https://bob:hunter22@example.com/x` })
    const text = await diagnostics.read()
    expect(text).not.toMatch(/ghp_a|hunter22/)
    await ctx.fiber.dispose()
  })

  it('rotates by size: the current and one rotated file, never more than twice the limit', async () => {
    const maxBytes = 4096
    const { ctx, dir, diagnostics } = await mount({ maxBytes })
    for (let i = 0; i < 200; i++) diagnostics.note({ kind: 'note', message: `event ${i} ${'x'.repeat(100)}` })
    await diagnostics.flushed()
    const current = readFileSync(join(dir, DIAGNOSTICS_FILE), 'utf8')
    const rotated = readFileSync(join(dir, ROTATED_FILE), 'utf8')
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(maxBytes)
    expect(Buffer.byteLength(rotated)).toBeLessThanOrEqual(maxBytes)
    // The newest event is the last line; the two files together end in order.
    const all = await diagnostics.read()
    const numbers = all
      .trim()
      .split('\n')
      .map((l) => Number(/event (\d+)/.exec(JSON.parse(l).message)?.[1] ?? -1))
      .filter((n) => n >= 0)
    expect(numbers.at(-1)).toBe(199)
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
    await ctx.fiber.dispose()
  })

  /** Run `fn` with DSH's terminal (stderr) and Cordis's logger captured. */
  function captured(ctx: Context, fn: () => void): { terminal: string[]; logged: Message[] } {
    const logged: Message[] = []
    ctx.logger.exporter({ levels: { default: 2 }, export: (message) => logged.push(message) })
    const terminal: string[] = []
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      terminal.push(String(chunk))
      return true
    })
    try {
      fn()
    } finally {
      write.mockRestore()
    }
    return { terminal, logged }
  }

  it('warn: one terminal line without a stack, the same text through ctx.logger, a diagnostics line with the stack', async () => {
    const { ctx, diagnostics } = await mount()
    const { terminal, logged } = captured(ctx, () => {
      warn(ctx, 'could not save group cursors', new Error('disk full'), 'rooms')
      warn(ctx, 'the usage ledger is off: no driver')
    })
    expect(terminal).toEqual(['dsh-bot-team: could not save group cursors (disk full)\n', 'dsh-bot-team: the usage ledger is off: no driver\n'])
    expect(logged.map((m) => [m.type, m.name, ...m.args])).toEqual([
      ['warn', 'dsh-bot-team', 'could not save group cursors (disk full)'],
      ['warn', 'dsh-bot-team', 'the usage ledger is off: no driver'],
    ])
    const lines = (await diagnostics.read())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 'warn' && l.kind !== 'start')
    expect(lines).toMatchObject([
      { kind: 'rooms', message: 'could not save group cursors', error: 'Error: disk full' },
      { kind: 'warn', message: 'the usage ledger is off: no driver' },
    ])
    expect(lines[0].stack).toMatch(/diagnostics\.test\.ts/)
    expect(lines[1]).not.toHaveProperty('error')
    await ctx.fiber.dispose()
  })

  it("warn masks a saved secret in the error's text on the terminal and in Cordis's logger, not only in the diagnostics log", async () => {
    const { ctx, diagnostics } = await mount({ secrets: true })
    // git's error text quoting a commit subject that holds the secret
    const { terminal, logged } = captured(ctx, () =>
      warn(ctx, 'the merge could not be recorded', new Error(`git commit failed: subject "use ${SAVED}"`), 'worktrees'),
    )
    const said = 'the merge could not be recorded (git commit failed: subject "use [secret:db-password]")'
    expect(terminal).toEqual([`dsh-bot-team: ${said}\n`])
    expect(logged.map((m) => m.args.join(' '))).toEqual([said])
    expect(await diagnostics.read()).not.toContain(SAVED)
    await ctx.fiber.dispose()
  })

  it('scrubText keeps ordinary text as it is', () => {
    expect(scrubText('the build failed at step 3 (exit code 2)')).toBe('the build failed at step 3 (exit code 2)')
  })
})

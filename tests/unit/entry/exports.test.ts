import { describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'

describe('plugin entry', () => {
  it('has named exports only (a default export makes the DSH Loader drop inject)', () => {
    expect('default' in plugin).toBe(false)
    expect(plugin.name).toBe('dsh-bot-team')
    expect(plugin.inject).toEqual(expect.arrayContaining(['tools', 'systemPrompt']))
    expect(typeof plugin.apply).toBe('function')
  })

  it('exports a Standard Schema Config that rejects bad input with a clear message', () => {
    const schema = plugin.Config as unknown as { '~standard': { validate(v: unknown): { issues?: { message: string }[] } } }
    expect(schema['~standard'].validate({}).issues).toBeUndefined()
    const bad = schema['~standard'].validate({ dir: 'relative/path' })
    expect(bad.issues?.[0]?.message).toContain('absolute')
    expect(schema['~standard'].validate({ nope: 1 }).issues).toBeDefined()
  })
})

describe('Config defaults', () => {
  it('accepts a loader row with no config at all and fills every default', () => {
    const schema = plugin.Config as unknown as { '~standard': { validate(v: unknown): { value?: unknown; issues?: unknown } } }
    expect(schema['~standard'].validate(undefined)).toEqual({
      value: {
        trustedHosts: [],
        writer: 'auto',
        requireLock: false,
        sqlite: 'auto',
        rooms: { limits: {} },
        team: {
          hopLimit: 6,
          sendsPerTurn: 5,
          taskLeaseMs: 1_800_000,
          workBudget: 40,
          maxBots: 50,
          maxGroups: 30,
          createsPerTurn: 3,
          botTurnsAtOnce: 4,
          keepFinished: 500,
        },
        memory: {
          limits: { entry: 300, memoryFile: 4000, topicFile: 16000, topics: 40, scopeTotal: 64000 },
          review: { enabled: true, maxChanges: 4, maxTokens: 1024 },
        },
        usage: { enabled: true, flushMs: 1000 },
        operations: { maxSchedules: 100, diagnosticsMaxBytes: 1048576 },
        network: { refreshSeconds: 5 },
        context: { checkRatio: 0.8, stewardTimeoutMs: 60000, noteTimeoutMs: 180000 },
      },
    })
  })
})

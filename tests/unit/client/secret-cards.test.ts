import { describe, expect, it } from 'vitest'
import { readRequests, safeOrigin } from '../../../src/client/secret-requests.ts'

describe('secret card helpers', () => {
  it('treat only loopback and HTTPS pages as safe to type a secret into', () => {
    expect(safeOrigin({ protocol: 'http:', hostname: '127.0.0.1' })).toBe(true)
    expect(safeOrigin({ protocol: 'http:', hostname: 'localhost' })).toBe(true)
    expect(safeOrigin({ protocol: 'http:', hostname: '[::1]' })).toBe(true)
    expect(safeOrigin({ protocol: 'https:', hostname: 'team.example' })).toBe(true)
    expect(safeOrigin({ protocol: 'http:', hostname: '192.168.1.5' })).toBe(false)
    expect(safeOrigin({ protocol: 'http:', hostname: '127.example.com' })).toBe(false)
    expect(safeOrigin(undefined)).toBe(false)
  })

  it('keep only well-formed requests from an answer, at most 20', () => {
    const ok = { id: 'secret-1', bot: { id: 'b', name: 'Main' }, variable: 'DSH_SECRET_X', purpose: 'p', exists: false }
    expect(readRequests({ requests: [ok, { id: 3 }, null, { ...ok, bot: {} }] })).toEqual([ok])
    expect(readRequests({ requests: 'nope' })).toEqual([])
    expect(readRequests(undefined)).toEqual([])
    expect(readRequests({ requests: Array.from({ length: 30 }, (_, i) => ({ ...ok, id: `s${i}` })) })).toHaveLength(20)
  })
})

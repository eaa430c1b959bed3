// The grant key of a call (pure): canonical JSON keeps every key — `__proto__` included, at any
// depth — sorts keys, and leaves out only the top-level free text.
import { describe, expect, it } from 'vitest'
import { callKey } from '../../../src/core/call-key.ts'

const parsed = (json: string) => JSON.parse(json) as unknown

describe('callKey', () => {
  it('keeps a `__proto__` key as data, at the top and nested', () => {
    expect(callKey('t', parsed('{"__proto__":{"path":"/etc"},"cmd":"ls"}'))).not.toBe(callKey('t', { cmd: 'ls' }))
    expect(callKey('t', parsed('{"a":{"__proto__":1}}'))).not.toBe(callKey('t', { a: {} }))
    expect(callKey('t', parsed('{"__proto__":1}'))).toBe(callKey('t', parsed('{"__proto__":1}')))
  })

  it('sorts keys and leaves out description and justification at the top level only', () => {
    expect(callKey('t', { b: 1, a: { d: 2, c: 3 } })).toBe(callKey('t', { a: { c: 3, d: 2 }, b: 1 }))
    expect(callKey('t', { a: 1, description: 'x', justification: 'y' })).toBe(callKey('t', { a: 1 }))
    expect(callKey('t', { a: { description: 'x' } })).not.toBe(callKey('t', { a: {} }))
    expect(callKey('t', { a: 1 })).not.toBe(callKey('u', { a: 1 }))
  })
})

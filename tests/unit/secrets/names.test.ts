import { describe, expect, it } from 'vitest'
import { envVar, secretName, secretPurpose, secretValue, VALUE_MAX } from '../../../src/secrets/names.ts'

describe('secretName', () => {
  it.each([
    ['GH_TOKEN', 'GH_TOKEN'],
    ['$GH_TOKEN', 'GH_TOKEN'],
    ['${GH_TOKEN}', 'GH_TOKEN'],
    ['$env:GH_TOKEN', 'GH_TOKEN'],
    ['gh-token', 'GH_TOKEN'],
    ['gh token', 'GH_TOKEN'],
    ['  gh_token ', 'GH_TOKEN'],
    ['DSH_SECRET_GH_TOKEN', 'GH_TOKEN'],
    ['a1', 'A1'],
  ])('normalises %j to %s', (raw, name) => {
    expect(secretName(raw)).toEqual({ ok: true, value: name })
  })
  it.each(['', '1ABC', '_X', 'GH.TOKEN', 'A'.repeat(65), 'ÄÖ', '$', 'a/b', 42, null])('refuses %j', (raw) => {
    const r = secretName(raw)
    expect(r.ok).toBe(false)
  })
  it('the variable is DSH_SECRET_<NAME>', () => {
    expect(envVar('GH_TOKEN')).toBe('DSH_SECRET_GH_TOKEN')
  })
})

describe('secretValue', () => {
  it('trims and accepts 4 to 16,384 characters', () => {
    expect(secretValue('  abcd \n')).toEqual({ ok: true, value: 'abcd' })
    expect(secretValue('x'.repeat(VALUE_MAX)).ok).toBe(true)
  })
  it('refuses too short, too long, NUL and non-text, without quoting the value', () => {
    for (const raw of ['abc', 'x'.repeat(VALUE_MAX + 1), 'abc\0def', 7]) {
      const r = secretValue(raw)
      expect(r.ok).toBe(false)
      if (!r.ok && typeof raw === 'string') expect(r.problem).not.toContain(raw)
    }
  })
})

describe('secretPurpose', () => {
  it('makes one line of at most 300 characters and refuses empty', () => {
    expect(secretPurpose(' push to\n GitHub ')).toEqual({ ok: true, value: 'push to GitHub' })
    expect(secretPurpose('  ').ok).toBe(false)
    expect(secretPurpose('x'.repeat(301)).ok).toBe(false)
  })
})

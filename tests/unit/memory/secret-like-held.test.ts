// The secret-like filter on entries it was not written from (secret-like-sets.ts): the rates are
// printed; the goal is ≥ 97 % of secret-like entries refused and ≤ 2 % of ordinary ones. Every
// refusal names the kind it saw ("looks like a password").
import { describe, expect, it } from 'vitest'
import { secretProblem } from '../../../src/memory/secret-like.ts'
import { HELD_ORDINARY, HELD_SECRET_LIKE } from './secret-like-sets.ts'

const zh = (s: string) => /\p{Script=Han}/u.test(s)

describe('secretProblem on the held labelled sets', () => {
  it('has at least 100 entries of each kind, at least 40 of each in English and in Chinese', () => {
    for (const set of [HELD_SECRET_LIKE, HELD_ORDINARY]) {
      expect(set.length).toBeGreaterThanOrEqual(100)
      expect(set.filter(zh).length).toBeGreaterThanOrEqual(40)
      expect(set.filter((s) => !zh(s)).length).toBeGreaterThanOrEqual(40)
      expect(new Set(set).size).toBe(set.length)
    }
  })

  it('refuses at least 97 % of the secret-like entries and at most 2 % of the ordinary ones (rates printed)', () => {
    const missed = HELD_SECRET_LIKE.filter((t) => secretProblem(t) === undefined)
    const wrong = HELD_ORDINARY.filter((t) => secretProblem(t) !== undefined).map((t) => `${t} → ${secretProblem(t)}`)
    const refused = 1 - missed.length / HELD_SECRET_LIKE.length
    const wrongly = wrong.length / HELD_ORDINARY.length
    console.log(
      `secret-like filter, held sets: refused ${HELD_SECRET_LIKE.length - missed.length} of ${HELD_SECRET_LIKE.length} secret-like (${(refused * 100).toFixed(1)} %), wrongly refused ${wrong.length} of ${HELD_ORDINARY.length} ordinary (${(wrongly * 100).toFixed(1)} %)`,
    )
    if (missed.length || wrong.length) console.log({ missed, wrong })
    expect(refused).toBeGreaterThanOrEqual(0.97)
    expect(wrongly).toBeLessThanOrEqual(0.02)
  })
})

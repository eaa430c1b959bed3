import { describe, expect, it } from 'vitest'
import {
  checkNote,
  fallbackNote,
  handoffPackage,
  noteOfPackage,
  NOTE_HEADINGS,
  noteRequest,
  packageBudgets,
  noteSystem,
  NOTE_SYSTEM_PREFIX,
  type ToBot,
} from '../../../src/context/note.ts'
import { verbatimBudget } from '../../../src/context/thresholds.ts'

const goodNote = NOTE_HEADINGS.map((h) => `## ${h}\n- something`).join('\n')

describe('handoff note', () => {
  it('the system text starts with the label and names every heading; a retry says why', () => {
    expect(noteSystem().startsWith(NOTE_SYSTEM_PREFIX)).toBe(true)
    for (const h of NOTE_HEADINGS) expect(noteSystem()).toContain(`## ${h}`)
    expect(noteSystem('shorter')).toContain('too long')
    expect(noteSystem('Decisions')).toContain('lacked these headings: Decisions')
  })

  it('a note with every heading in order passes; a missing heading or a too-long note asks for a retry', () => {
    expect(checkNote(goodNote)).toEqual({ ok: true, note: goodNote })
    expect(checkNote(goodNote.replace('## Decisions', '## Choices'))).toEqual({ ok: false, retry: 'Decisions' })
    expect(checkNote(`${goodNote}\n${'x'.repeat(9_000)}`)).toEqual({ ok: false, retry: 'shorter' })
    expect(checkNote(undefined).ok).toBe(false)
  })

  it('the request carries the previous note and is bounded', () => {
    const lines = Array.from({ length: 300 }, (_, i) => ({ who: 'user' as const, text: `ask ${i} ${'y'.repeat(400)}` }))
    const text = noteRequest(lines, '## Goals\nship /srv/app v2')
    expect(text).toContain('ship /srv/app v2')
    expect(text).toContain('ask 299')
    expect(text.length).toBeLessThan(16_000)
  })

  it('the fallback note has every heading, carries the previous note unchanged and says why', () => {
    const note = fallbackNote({
      why: 'the context window overflowed',
      previousNote: '## Facts to keep\nerror E4711 at /var/log/x.log',
      lastUserText: 'please deploy',
    })
    expect(checkNote(note).ok).toBe(true)
    expect(note).toContain('the context window overflowed')
    expect(note).toContain('error E4711 at /var/log/x.log')
    expect(note).toContain('please deploy')
  })
})

describe('handoff package', () => {
  const msg = (seq: number, text: string, who: ToBot['who'] = 'user'): ToBot => ({ part: 1, seq, time: Date.UTC(2026, 10, 30, 12, seq % 60), who, text })

  it('holds the note, the latest messages word for word with anchors, and says nothing is pending', () => {
    const text = handoffPackage({
      part: 2,
      note: goodNote,
      messages: [msg(3, 'keep the build green'), msg(9, '[Message from Ada] done', 'bot')],
      verbatimTokens: 1_000,
      resume: false,
    })
    expect(text.startsWith('[Handoff · part 2]')).toBe(true)
    expect(text).toContain(goodNote)
    expect(text).toMatch(/\[part 1 #3 · \d{4}-\d\d-\d\d \d\d:\d\d\] User:\nkeep the build green/)
    expect(text).toContain('Message:\n[Message from Ada] done')
    expect(text).toContain('Wait for the next message.')
  })

  it('older messages past the verbatim budget are listed with anchors, newest kept word for word', () => {
    const messages = Array.from({ length: 40 }, (_, i) => msg(i + 1, `message number ${i + 1} ${'z'.repeat(200)}`))
    const text = handoffPackage({ part: 3, note: goodNote, messages, verbatimTokens: 300, resume: true })
    const [, latest] = text.split('## Latest messages')
    expect(latest).toContain('message number 40')
    expect(latest).not.toContain('message number 1 ')
    expect(text).toMatch(/- \[part 1 #1 · [^\]]+\] User: message number 1 /)
    expect(text).toContain('go on with it now')
  })

  it('the note is read back out of a package, with or without the list', () => {
    for (const group of [false, true]) {
      const text = handoffPackage({
        part: 4,
        note: goodNote,
        messages: Array.from({ length: 9 }, (_, i) => msg(i + 1, `m ${i} ${'w'.repeat(300)}`)),
        verbatimTokens: 100,
        resume: false,
        group,
      })
      expect(noteOfPackage(text)).toBe(goodNote)
    }
    expect(noteOfPackage('no package here')).toBeUndefined()
  })

  it('a group part carries only the latest messages', () => {
    const messages = Array.from({ length: 10 }, (_, i) => msg(i + 1, `post ${i + 1} ${'q'.repeat(200)}`))
    const text = handoffPackage({ part: 2, note: goodNote, messages, verbatimTokens: 100, resume: false, group: true })
    expect(text).not.toContain('before the latest ones')
  })

  it('the verbatim budget is min(16,384, check / 4); a package uses half of it and a sixteenth of the line for its list', () => {
    expect(verbatimBudget(4_000)).toBe(1_000)
    expect(verbatimBudget(1_000_000)).toBe(16_384)
    expect(packageBudgets(6_400)).toEqual({ verbatimTokens: 800, listTokens: 400 })
    expect(packageBudgets(1_000_000)).toEqual({ verbatimTokens: 8_192, listTokens: 4_096 })
  })

  it('the note request shows no more lines than its character budget', () => {
    const lines = Array.from({ length: 100 }, (_, i) => ({ who: 'user' as const, text: `ask ${i} ${'y'.repeat(300)}` }))
    expect(noteRequest(lines, undefined, 1_000).length).toBeLessThan(1_600)
  })
})

// Honest names (pure): which characters a new name may not hold, which names look like another
// (Unicode TR39 skeletons, any case), and how a name or a terminal line shows what it may not show raw.
import { describe, expect, it, vi } from 'vitest'
import { terminal } from '../../src/dsh/warn.ts'
import { confusableWith, invisibleIn, lookalikeOf, shownName, terminalText } from '../../src/core/names.ts'

const team = [
  { id: 'bot-1', name: 'Main' },
  { id: 'bot-2', name: 'Ada' },
]

describe('names that look like another', () => {
  it.each([
    ['Cyrillic і in Main', 'Maіn'],
    ['Cyrillic capitals', 'МАIN'],
    ['full-width M', 'Ｍain'],
    ['script capital M', 'ℳain'],
    ['rn for m', 'rnain'],
    ['a soft hyphen inside (a name saved before it was refused)', 'Ma\u00adin'],
    ['Cyrillic А in Ada', 'Аda'],
  ])('%s is confusable with an existing name', (_why, name) => {
    expect(confusableWith(name, team)?.id).toMatch(/^bot-/)
  })

  it.each([['Bob'], ['Maine'], ['Adam'], ['小明']])('%s is not', (name) => {
    expect(confusableWith(name, team)).toBeUndefined()
  })

  it("a Bot's own name does not clash with itself, and groups count as much as Bots", () => {
    expect(confusableWith('MAIN', team, 'bot-1')).toBeUndefined()
    const state = {
      bots: { 'bot-1': { id: 'bot-1', name: 'Main' } },
      groups: { 'group-1': { id: 'group-1', name: 'Desk' }, 'group-2': { id: 'group-2', name: 'Old', deleted: {} } },
    }
    expect(lookalikeOf('Dеsk', state)).toBe('group Desk')
    expect(lookalikeOf('Maіn', state)).toBe('Bot Main')
    expect(lookalikeOf('Оld', state)).toBeUndefined()
  })
})

describe('characters a name may not hold, and how they are shown', () => {
  it('finds controls, format characters and direction marks, but not a joiner inside an emoji sequence', () => {
    expect(invisibleIn('Ma\u200bin')).toBe('U+200B')
    expect(invisibleIn('x\u202ey')).toBe('U+202E')
    expect(invisibleIn('a\u001b[31m')).toBe('U+001B')
    expect(invisibleIn('👩\u200d💻 Dev')).toBeUndefined()
    expect(invisibleIn('Ada Lovelace')).toBeUndefined()
  })

  it('shows a saved name with its invisible characters escaped, and leaves other names as they are', () => {
    expect(shownName('Ma\u00adin')).toBe('Ma\\u{AD}in')
    expect(shownName('Desk\u202e')).toBe('Desk\\u{202E}')
    expect(shownName('👩\u200d💻 Dev')).toBe('👩\u200d💻 Dev')
    expect(shownName('Main')).toBe('Main')
  })

  it('writes a terminal line with every escape and bidi character escaped', () => {
    expect(terminalText('group \u001b[2J\u001b[31mred\u202e done')).toBe('group \\u{1B}[2J\\u{1B}[31mred\\u{202E} done')
  })

  it("the plugin's terminal lines go out escaped, so a group's name in an error line cannot reach the terminal raw", () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      terminal('dsh-bot-team: the group "Desk\u001b[2J\u202e" could not be opened')
      expect(write.mock.calls.map(([c]) => String(c))).toEqual(['dsh-bot-team: the group "Desk\\u{1B}[2J\\u{202E}" could not be opened\n'])
    } finally {
      write.mockRestore()
    }
  })
})

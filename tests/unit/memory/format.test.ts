// The memory file format: entries with metadata, hand-written lines kept, search/prompt text.
import { describe, expect, it } from 'vitest'
import { addEntry, entryLine, entryShapeProblem, findEntry, parseEntries, plainText, replaceLine } from '../../../src/memory/format.ts'

const HAND = '# Memory\n\nNotes I wrote myself.\n- a hand-written bullet\n'

describe('memory file format', () => {
  it('writes one bullet line per entry with a metadata comment, and parses it back', () => {
    const line = entryLine('The user prefers tabs', { added: '2026-11-30', source: 'part 2', by: 'Ada' })
    expect(line).toBe('- The user prefers tabs <!-- added: 2026-11-30; source: part 2; by: Ada -->')
    const [entry] = parseEntries(`# Memory\n${line}\n`)
    expect(entry).toEqual({ text: 'The user prefers tabs', meta: { added: '2026-11-30', source: 'part 2', by: 'Ada' }, line: 1 })
  })

  it('metadata values cannot break the line (";", "<", ">" and newlines are dropped)', () => {
    const line = entryLine('x', { source: 'group "a;b" -->\nc' })
    expect(parseEntries(line)[0]!.meta.source).toBe('group "a b" -- c')
  })

  it('keeps hand-written lines when adding, replacing and removing entries', () => {
    let file = addEntry(HAND, entryLine('first', { added: 'd' }), 'Memory')
    file = addEntry(file, entryLine('second', { added: 'd' }), 'Memory')
    expect(file).toContain('Notes I wrote myself.')
    expect(file).toContain('- a hand-written bullet')
    expect(parseEntries(file).map((e) => e.text)).toEqual(['first', 'second'])
    const first = parseEntries(file)[0]!
    file = replaceLine(file, first, entryLine('first, edited', { added: 'd' }))
    expect(parseEntries(file).map((e) => e.text)).toEqual(['first, edited', 'second'])
    file = replaceLine(file, parseEntries(file)[1]!, undefined)
    expect(parseEntries(file).map((e) => e.text)).toEqual(['first, edited'])
    expect(file.startsWith(HAND.trimEnd())).toBe(true)
  })

  it('starts an empty file with its title; new entries go after the last entry', () => {
    const file = addEntry('', entryLine('one', {}), 'Team memory')
    expect(file.split('\n')[0]).toBe('# Team memory')
    const withNote = `${file}\ntrailing note\n`
    const next = addEntry(withNote, entryLine('two', {}), 'Team memory')
    expect(next.split('\n').filter(Boolean)).toEqual(['# Team memory', '- one <!--  -->', '- two <!--  -->', 'trailing note'])
  })

  it('finds an entry by its exact text or a unique part; several matches are reported', () => {
    const entries = parseEntries([entryLine('uses pnpm', {}), entryLine('uses vitest', {}), entryLine('likes tea', {})].join('\n'))
    expect(findEntry(entries, 'likes tea')).toMatchObject({ kind: 'one', entry: { text: 'likes tea' } })
    expect(findEntry(entries, 'TEA')).toMatchObject({ kind: 'one' })
    expect(findEntry(entries, 'uses')).toMatchObject({ kind: 'many' })
    expect(findEntry(entries, 'coffee')).toEqual({ kind: 'none' })
  })

  it('refuses entry shapes that cannot be one line', () => {
    expect(entryShapeProblem('  ')).toMatch(/empty/)
    expect(entryShapeProblem('a\nb')).toMatch(/one line/)
    expect(entryShapeProblem('a --> b')).toMatch(/cannot contain/)
    expect(entryShapeProblem('fine')).toBeUndefined()
  })

  it('shows a file without metadata and title for prompts and search', () => {
    const file = addEntry(HAND, entryLine('first', { added: 'd', by: 'Ada' }), 'Memory')
    expect(plainText(file)).toBe('Notes I wrote myself.\n- a hand-written bullet\n- first')
  })
})

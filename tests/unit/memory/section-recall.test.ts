// The frozen memory section's text and recall's search (pure).
import { describe, expect, it } from 'vitest'
import { entryLine } from '../../../src/memory/format.ts'
import { search, terms } from '../../../src/memory/recall.ts'
import { renderMemorySection } from '../../../src/memory/section.ts'

const file = (title: string, ...texts: string[]) =>
  [`# ${title}`, ...texts.map((t) => entryLine(t, { added: '2026-11-30', source: 'part 1' }))].join('\n') + '\n'
const own = {
  memory: file('Ada', 'prefers tabs', '用户喜欢简体中文回答'),
  topics: { deploy: file('deploy', 'deploys go out on Thursdays', 'staging is db.internal') },
}
const team = { memory: file('Team memory', 'standups at 9:30'), topics: {} }

describe('renderMemorySection', () => {
  it('shows both MEMORY.md files without metadata and the topic list with counts, never topic contents', () => {
    const text = renderMemorySection(own, team)
    expect(text).toContain('## Your memory\n- prefers tabs\n- 用户喜欢简体中文回答\nTopics (recall reads them): deploy (2).')
    expect(text).toContain('## Team memory\n- standups at 9:30')
    expect(text).not.toContain('Topics: none')
    expect(text).not.toContain('Thursdays')
    expect(text).not.toContain('<!--')
  })

  it('is the same bytes for the same files (a re-render cannot move the prefix)', () => {
    expect(renderMemorySection(own, team)).toBe(renderMemorySection(structuredClone(own), structuredClone(team)))
  })

  it('repeats no rule the memory tools give, and tells a group Session its own chat keeps memory', () => {
    expect(renderMemorySection(own, team)).not.toMatch(/keys|passwords|one short fact/)
    const text = renderMemorySection(own, team, { where: 'group' })
    expect(text).toContain('your own chat keeps it')
    expect(text).not.toContain('recall')
  })

  it('is empty while neither memory holds anything (no section, no cost)', () => {
    const empty = { memory: '', topics: {} }
    expect(renderMemorySection(empty, { memory: '# Team memory\n', topics: {} })).toBe('')
  })
})

describe('recall search', () => {
  it('splits queries into words and Han runs with their character pairs', () => {
    expect(terms('Deploy day?')).toEqual(['deploy', 'day'])
    expect(terms('中文回答')).toEqual(['中文回答', '中文', '文回', '回答'])
  })

  it('finds entries in MEMORY.md and topic files of both scopes, best match first', () => {
    const hits = search(
      [
        { label: 'your', files: own },
        { label: 'team', files: team },
      ],
      'when do deploys go out',
    )
    expect(hits[0]).toMatchObject({ where: 'your topic deploy', text: 'deploys go out on Thursdays', added: '2026-11-30' })
    expect(search([{ label: 'your', files: own }], '中文').map((h) => h.text)).toEqual(['用户喜欢简体中文回答'])
    expect(search([{ label: 'team', files: team }], 'kubernetes')).toEqual([])
  })
})

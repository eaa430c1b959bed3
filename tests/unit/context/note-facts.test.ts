import { describe, expect, it } from 'vitest'
import { FACTS_MAX, keepFacts, missingFacts, partFacts } from '../../../src/context/note-facts.ts'
import { NOTE_HEADINGS } from '../../../src/context/note.ts'

const note = NOTE_HEADINGS.map((h) => `## ${h}\n-`).join('\n\n')
const user = (text: string) => ({ who: 'user' as const, text })

describe('facts a handoff must keep', () => {
  it('finds paths, URLs, ids, hex with a digit, quoted names and error lines in user messages, and tool errors whole', () => {
    const facts = partFacts([
      user(
        'see ~/work/app/main.go and https://x.example.com/a?b=1. Ticket ABC-12, sha 3f9a2b7c; call it "Blue Falcon"; the word deadbeef is not hex with a digit',
      ),
      user('it printed:\nerror TS2345: Argument of type string\nthen nothing'),
      { who: 'tool' as const, text: "[tool result] bash (error): Error: ENOENT, open '/etc/app.yaml'" },
      { who: 'tool' as const, text: '[tool result] bash: all fine in /tmp/ok/path.txt' },
      { who: 'you' as const, text: 'I will check /not/read/by/the/check.txt' },
    ])
    expect(facts).toEqual([
      { heading: 'Where to look', text: '~/work/app/main.go' },
      { heading: 'Where to look', text: 'https://x.example.com/a?b=1' },
      { heading: 'Facts to keep', text: 'ABC-12' },
      { heading: 'Facts to keep', text: '3f9a2b7c' },
      { heading: 'Facts to keep', text: '"Blue Falcon"' },
      { heading: 'Open threads', text: 'error TS2345: Argument of type string' },
      { heading: 'Open threads', text: "Error: ENOENT, open '/etc/app.yaml'" },
      { heading: 'Where to look', text: '/etc/app.yaml' },
      { heading: 'Facts to keep', text: "'/etc/app.yaml'" },
    ])
  })

  it('appends only what is missing, under its heading, and stops at the cap', () => {
    const facts = partFacts([user(Array.from({ length: FACTS_MAX + 10 }, (_, i) => `T-${i}`).join(' '))])
    const missing = missingFacts(facts, `${note}\nT-0 is in the package`)
    expect(missing[0]!.text).toBe('T-1')
    const kept = keepFacts(note, missing)
    const block = kept.slice(kept.indexOf('## Facts to keep'), kept.indexOf('## Open threads'))
    expect(block).toMatch(/^## Facts to keep\n-\nKept word for word .*\n- T-1\n- T-2\n/)
    expect(block.match(/^- T-/gm)).toHaveLength(FACTS_MAX)
    expect(kept.indexOf('## Open threads')).toBeGreaterThan(kept.indexOf('- T-40'))
    expect(keepFacts(note, [])).toBe(note)
  })
})

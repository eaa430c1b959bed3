// The steward's side calls are told apart by the start of their system text: the scripted model's
// table must name the very prefixes the plugin sends, and the note headings it writes by default.
import { describe, expect, it } from 'vitest'
import { NOTE_HEADINGS, NOTE_SYSTEM_PREFIX, noteSystem } from '../../../src/context/note.ts'
import { STEWARD_SYSTEM } from '../../../src/context/steward.ts'
import { NOTE_HEADINGS as SCRIPTED_HEADINGS, ScriptedModel, STEWARD_CALLS, requestFromOptions } from '../../../scripts/scripted-model/format.ts'
import { checkNote } from '../../../src/context/note.ts'

const request = (system: string, user = 'User: first line') =>
  requestFromOptions({
    model: 'm',
    system,
    purpose: 'compaction',
    messages: [{ role: 'user', content: [{ type: 'text', text: user }], source: { kind: 'plugin', plugin: 'bot-team' } }],
  })

describe('steward side-call labels', () => {
  it("the scripted model labels the steward and the note call by their system text, and DSH's own compaction call by neither", () => {
    const model = new ScriptedModel({ steward: { text: '{"action":"checkpoint"}' } })
    const steward = request(STEWARD_SYSTEM)
    expect(model.respond(steward)).toEqual({ text: '{"action":"checkpoint"}' })
    expect(steward.label).toBe('steward')
    const note = request(noteSystem('shorter'))
    expect(checkNote((model.respond(note) as { text: string }).text).ok).toBe(true)
    expect(note.label).toBe('handoff-note')
    const dsh = request('Summarize the conversation')
    model.respond(dsh)
    expect(dsh.label).toBeUndefined()
    expect(model.loopRequests()).toHaveLength(0)
  })

  it("the table names the plugin's prefixes and headings", () => {
    expect(STEWARD_CALLS.map((c) => c.systemPrefix)).toEqual([STEWARD_SYSTEM.split('\n')[0], NOTE_SYSTEM_PREFIX])
    expect(SCRIPTED_HEADINGS).toEqual([...NOTE_HEADINGS])
  })
})

// Backup policy: which team files are kept, which Sessions are the team's, how paths move to the
// new home, and which workspace records come along.
import { describe, expect, it } from 'vitest'
import { decideBotFile, ledgerSessionIds, pickTeamSessions, rebase, stateSessionIds, teamWorkspaces } from '../../../src/backup/plan.ts'

describe('backup plan', () => {
  it('keeps state, memory, rooms and the workspace; leaves out the lock, pairing, derived indexes, temp saves and (unless asked) secrets', () => {
    const kept = [
      'state.json',
      'memory/bots/bot-1/MEMORY.md',
      'memory/journal.jsonl',
      'rooms/group-1.jsonl',
      'workspace/notes.md',
      'workspace/data.sqlite',
      'workspace/run.1',
      'diagnostics.jsonl',
      'tasks/snapshot.jsonl',
      'tasks/journal.jsonl',
    ]
    for (const rel of kept) expect(decideBotFile(rel, { secrets: false }), rel).toEqual({ include: true })
    const left = [
      'state.lock',
      'state.lock/owner.json',
      'pairing.json',
      'archive.sqlite',
      'archive.sqlite-wal',
      'usage.sqlite-shm',
      'state.json.123456',
      'rooms/group-1.jsonl.77.tmp',
      'state.json.broken-2026-01-01T00-00-00.000Z',
      'tasks/journal.broken-2026-01-01T00-00-00-000Z.jsonl',
      'tasks/snapshot.jsonl.1234',
      'secrets.json',
    ]
    for (const rel of left) expect(decideBotFile(rel, { secrets: false }).include, rel).toBe(false)
    expect(decideBotFile('secrets.json', { secrets: true })).toEqual({ include: true })
  })

  it('collects every Session id team state points at, in any version of the schema', () => {
    const state = {
      bots: { 'bot-1': { sessionParts: [{ sessionId: 's-old' }, { sessionId: 's-new' }] } },
      groups: { g: { roomSessionId: 's-room', memberSessions: { 'bot-1': 's-member' } } },
      deliveries: [{ sessionId: 's-target', text: 'sessionId: not-this' }],
      future: { deeper: [{ sessionId: 's-future' }] },
    }
    expect([...stateSessionIds(state)].sort()).toEqual(['s-future', 's-member', 's-new', 's-old', 's-room', 's-target'])
    expect(stateSessionIds(undefined).size).toBe(0)
  })

  it("collects every task Session the ledger's files name: each attempt's, where it moved, the task's own; a damaged line names nothing", () => {
    const snapshot = [
      JSON.stringify({ v: 1, seq: 3, nextId: 2, at: 't', tasks: 1, intents: 1 }),
      JSON.stringify({
        task: { id: 'task-1', sessionId: 's-now', attempts: [{ n: 1, sessionId: 's-first', moved: ['s-moved'] }], lease: { sessionId: 's-now' } },
      }),
      JSON.stringify({ intent: { kind: 'dispatch', sessionId: 's-intent' } }),
      '{"task": {"sessionId": "s-torn"',
    ].join('\n')
    expect([...ledgerSessionIds(snapshot)].sort()).toEqual(['s-first', 's-intent', 's-moved', 's-now'])
  })

  it("picks Sessions named by state or working in the team folder, and their subagent children; not the person's other chats", () => {
    const headers = [
      { id: 'bot', cwd: '/h/bot/workspace' },
      { id: 'named', cwd: '/elsewhere' },
      { id: 'child', cwd: '/tmp/x', parentSession: 'bot' },
      { id: 'grandchild', parentSession: 'child' },
      { id: 'mine', cwd: '/home/me/project' },
      { id: 'lookalike', cwd: '/h/bot/workspace-2' },
    ]
    expect(pickTeamSessions(headers, new Set(['named']), '/h/bot/workspace').map((h) => h.id)).toEqual(['bot', 'named', 'child', 'grandchild'])
  })

  it('moves paths under the old home to the new one and nothing else', () => {
    expect(rebase('/home/ann/.dsh/bot/workspace', '/home/ann/.dsh', '/Users/bob/dsh')).toBe('/Users/bob/dsh/bot/workspace')
    expect(rebase('/home/ann/.dsh', '/home/ann/.dsh/', '/n')).toBe('/n')
    expect(rebase('/home/ann/.dsh-other/x', '/home/ann/.dsh', '/n')).toBeUndefined()
  })

  it("keeps only the team's Sessions of DSH's workspace records and archive set", () => {
    const storage = {
      global: { archivedSessionIds: ['hidden-bot', 'mine'] },
      tables: {
        workspaces: {
          w1: { path: '/h/bot/workspace', title: 'Bot team', sessionIds: ['bot', 'hidden-bot'] },
          w2: { path: '/home/me/project', title: 'project', sessionIds: ['mine'] },
        },
      },
    }
    expect(teamWorkspaces(storage, new Set(['bot', 'hidden-bot']))).toEqual({
      workspaces: [{ path: '/h/bot/workspace', title: 'Bot team', sessionIds: ['bot', 'hidden-bot'] }],
      archivedSessionIds: ['hidden-bot'],
    })
    expect(teamWorkspaces(undefined, new Set(['bot']))).toEqual({ workspaces: [], archivedSessionIds: [] })
  })
})

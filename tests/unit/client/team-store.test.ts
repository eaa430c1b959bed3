// The client's connection with the network faked: the team stream's `secrets` event is counted
// (and kept across later team views) so the secret card re-reads; a change carries the team page's
// pairing token and a read does not.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { callApi, PAIRING_TOKEN_KEY, TeamStore } from '../../../src/client/team-client.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'

const VIEW = { mode: 'writer', revision: 1, bots: [{ id: 'b1', name: 'Main' }], groups: [], problems: [] }

function fakeSource() {
  const handlers = new Map<string, (e: { data?: unknown }) => void>()
  return {
    source: { addEventListener: (type: string, fn: (e: any) => void) => handlers.set(type, fn), close() {}, onerror: null },
    emit: (type: string, data: unknown) => handlers.get(type)!({ data: JSON.stringify(data) }),
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('TeamStore', () => {
  it("counts the stream's secrets events and keeps the count across later team views", () => {
    const fake = fakeSource()
    const store = new TeamStore(() => fake.source)
    store.subscribe(() => {})
    fake.emit('team', VIEW)
    expect(store.getSnapshot().secrets).toBeUndefined()
    fake.emit('secrets', {})
    expect(store.getSnapshot()).toMatchObject({ secrets: 1, view: { revision: 1 } })
    fake.emit('team', { ...VIEW, revision: 2 })
    expect(store.getSnapshot()).toMatchObject({ secrets: 1, view: { revision: 2 } })
  })
})

describe('callApi', () => {
  it('sends the pairing token in the header the server reads on every call, and every write as JSON, with or without a body', async () => {
    const seen: Array<{ method: string; headers: Record<string, string> }> = []
    vi.stubGlobal('localStorage', { getItem: (k: string) => (k === PAIRING_TOKEN_KEY ? 'tok-123' : null) })
    vi.stubGlobal('fetch', async (_url: string, init: { method: string; headers: Record<string, string> }) => {
      seen.push({ method: init.method, headers: init.headers })
      return new Response('{}', { status: 200 })
    })
    await callApi('GET', '/pairing')
    await callApi('POST', '/secrets/requests/x', { value: 'v', scope: 'bot' })
    await callApi('DELETE', '/secrets/requests/x')
    expect(seen.map((r) => r.headers[PAIRING_HEADER])).toEqual(['tok-123', 'tok-123', 'tok-123'])
    // The routes' fence refuses a write that is not JSON (415), so a DELETE without a body says JSON too.
    expect(seen.map((r) => r.headers['content-type'])).toEqual([undefined, 'application/json', 'application/json'])
  })
})

// The team feed's push timing with the clock faked: a lone change goes out on the next turn of the
// event loop (not held back by the coalescing window), and a burst right after a push is one
// event with the newest view once the window has passed.
import { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { COALESCE_MS, TeamFeed } from '../../../src/web/team-api-routes.ts'
import type { TeamView } from '../../../src/web/team-view.ts'

const view = (revision: number): TeamView => ({ mode: 'writer', revision, bots: [], groups: [], problems: [] })

function stream() {
  const res = Object.assign(new EventEmitter(), {
    writes: [] as string[],
    writeHead() {},
    write(chunk: string) {
      res.writes.push(chunk)
      return true
    },
    end() {},
  })
  const revisions = () => res.writes.filter((w) => w.includes('event: team')).map((w) => (JSON.parse(w.slice(w.indexOf('data: ') + 6)) as TeamView).revision)
  return { req: new EventEmitter() as unknown as IncomingMessage, res: res as unknown as ServerResponse, revisions }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('TeamFeed', () => {
  /** A feed with one open stream that has seen revision 1 and, after a quiet spell, a pushed revision 2. */
  function afterOnePush() {
    const at = { revision: 1 }
    const feed = new TeamFeed(() => view(at.revision))
    const s = stream()
    feed.open(s.req, s.res)
    vi.advanceTimersByTime(COALESCE_MS * 4)
    at.revision = 2
    feed.changed()
    vi.advanceTimersByTime(0)
    return { feed, s, at }
  }

  it('pushes a lone change on the next turn of the event loop, without waiting for the coalescing window', () => {
    const { feed, s } = afterOnePush()
    expect(s.revisions()).toEqual([1, 2])
    feed.close()
  })

  it('sends a burst right after a push as one event with the newest view, once the window has passed', () => {
    const { feed, s, at } = afterOnePush()
    at.revision = 3
    feed.changed()
    at.revision = 4
    feed.changed()
    vi.advanceTimersByTime(COALESCE_MS - 1)
    expect(s.revisions()).toEqual([1, 2])
    vi.advanceTimersByTime(1)
    expect(s.revisions()).toEqual([1, 2, 4])
    feed.close()
  })
})

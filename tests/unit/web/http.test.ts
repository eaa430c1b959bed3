import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { decodeSegment, HttpError, MAX_SEGMENT_CHARS, readJsonBody } from '../../../src/web/http.ts'

const body = (text: string, headers: Record<string, string> = {}) =>
  Object.assign(Readable.from([Buffer.from(text)]), { headers }) as unknown as IncomingMessage

async function statusOf(run: () => unknown): Promise<number | undefined> {
  try {
    await run()
    return undefined
  } catch (error) {
    return error instanceof HttpError ? error.status : -1
  }
}

describe('HTTP plumbing', () => {
  it('decodes path segments; a malformed escape or an overlong segment is a 400', async () => {
    expect(decodeSegment('Ada%20Lovelace')).toBe('Ada Lovelace')
    expect(decodeSegment('%E5%B0%8F%E6%98%8E')).toBe('小明')
    for (const bad of ['%', '%E0%A4%A', '%zz', 'a%']) expect(await statusOf(() => decodeSegment(bad))).toBe(400)
    expect(decodeSegment('x'.repeat(MAX_SEGMENT_CHARS))).toHaveLength(MAX_SEGMENT_CHARS)
    expect(await statusOf(() => decodeSegment('x'.repeat(MAX_SEGMENT_CHARS + 1)))).toBe(400)
  })

  it('reads bounded JSON bodies: 413 above the cap (declared or streamed), 400 for bad JSON, {} when empty', async () => {
    expect(await readJsonBody(body('{"a":1}'), 100)).toEqual({ a: 1 })
    expect(await readJsonBody(body('  '), 100)).toEqual({})
    expect(await statusOf(() => readJsonBody(body('{"a":'), 100))).toBe(400)
    expect(await statusOf(() => readJsonBody(body('x'.repeat(101)), 100))).toBe(413)
    expect(await statusOf(() => readJsonBody(body('{}', { 'content-length': '101' }), 100))).toBe(413)
  })
})

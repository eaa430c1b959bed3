/**
 * HTTP plumbing for the routes: the error a handler throws for a 4xx, sending with the plugin's
 * security headers and policy, reading a bounded JSON body, decoding a path segment.
 * Deliberately no routing, no trust or pairing decisions.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { z } from 'zod'
import { formatIssues } from '../core/zod-issues.ts'
import { errorText } from '../core/errors.ts'

/** A refusal a handler throws; the router answers it with `status` and `{ error: message }`. */
export class HttpError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** For JSON and anything that is not the page: nothing may load or frame it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'"

export function send(res: ServerResponse, status: number, type: string, body: string, csp: string = API_CSP): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'referrer-policy': 'no-referrer',
    'content-security-policy': csp,
  })
  res.end(body)
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value))
}

/**
 * Read a JSON body of at most `maxBytes` (413 above it: a declared Content-Length is refused before
 * reading, a stream that grows past it is cut off); an empty body is `{}`; bad JSON is a 400.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () => new HttpError(413, `request body is larger than ${maxBytes} bytes`)
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) throw tooLarge()
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `request body is not valid JSON (${errorText(error)})`)
  }
}

/** Longest path segment (an id or a name) a route looks up; longer ones are a 400. */
export const MAX_SEGMENT_CHARS = 200

/** Decode one path segment: a malformed `%` escape or an overlong segment is a 400, not a 500. */
export function decodeSegment(raw: string): string {
  let value: string
  try {
    value = decodeURIComponent(raw)
  } catch {
    throw new HttpError(400, `malformed percent-escape in the path: "${raw.slice(0, 40)}"`)
  }
  if (value.length > MAX_SEGMENT_CHARS) throw new HttpError(400, `path segment is longer than ${MAX_SEGMENT_CHARS} characters`)
  return value
}

/** Parse a body with a zod schema; a mismatch is a 400 naming every problem. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new HttpError(400, formatIssues(parsed.error))
  return parsed.data
}

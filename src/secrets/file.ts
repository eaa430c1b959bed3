/**
 * `bot/secrets.json`: the one file that holds secret values (name, value, purpose, scope, times) and
 * the open requests; read (missing: empty, malformed: broken, never quoted) and written whole, 0600,
 * not encrypted. Deliberately decides nothing and keeps nothing in `state.json`.
 */
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { writePrivateFile } from '../core/private-file.ts'
import { NAME_PATTERN, PURPOSE_MAX, VALUE_MAX } from './names.ts'
import { formatIssues } from '../core/zod-issues.ts'

export const SECRETS_FILE = 'secrets.json'
/** At most this many saved secrets and open requests (each). */
export const SECRETS_MAX = 200
export const REQUESTS_MAX = 200

const id = z.string().min(1).max(200)
const time = z.string().max(40)
const name = z.string().regex(NAME_PATTERN)

export const SecretScope = z.union([z.literal('all'), z.array(id).max(1000)])
export type SecretScope = z.infer<typeof SecretScope>

export const SecretRecord = z.object({
  name,
  value: z
    .string()
    .min(1)
    .max(VALUE_MAX * 4),
  purpose: z.string().max(PURPOSE_MAX),
  scope: SecretScope,
  /** The Bot whose request created it; absent when the person added it in settings. */
  requestedBy: id.optional(),
  createdAt: time,
  updatedAt: time,
  lastUsedAt: time.optional(),
})
export type SecretRecord = z.infer<typeof SecretRecord>

export const SecretRequest = z.object({
  id,
  botId: id,
  /** The own-chat Session the Bot asked from. */
  sessionId: id,
  name,
  purpose: z.string().max(PURPOSE_MAX),
  createdAt: time,
})
export type SecretRequest = z.infer<typeof SecretRequest>

export const SecretsData = z.object({
  version: z.literal(1),
  secrets: z.array(SecretRecord).max(SECRETS_MAX),
  requests: z.array(SecretRequest).max(REQUESTS_MAX),
})
export type SecretsData = z.infer<typeof SecretsData>

export const emptySecrets = (): SecretsData => ({ version: 1, secrets: [], requests: [] })

export type SecretsRead = { kind: 'ok'; data: SecretsData; stamp: string } | { kind: 'broken'; problem: string; stamp: string }

/** What changes when the file is replaced (mtime + size + inode), for followers to notice. */
export function fileStamp(file: string): string {
  try {
    const st = statSync(file)
    return `${st.mtimeMs}:${st.size}:${st.ino}`
  } catch {
    return 'missing'
  }
}

/** Read the file (synchronously: small, bounded). Problems never quote its content. */
export function readSecretsFile(file: string): SecretsRead {
  const stamp = fileStamp(file)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'ok', data: emptySecrets(), stamp }
    return { kind: 'broken', problem: `${path.basename(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, stamp }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return { kind: 'broken', problem: `${path.basename(file)} is not valid JSON`, stamp }
  }
  const parsed = SecretsData.safeParse(raw)
  if (!parsed.success) {
    return { kind: 'broken', problem: `${path.basename(file)} has an unexpected shape (${formatIssues(parsed.error, { root: '(top)', max: 3 })})`, stamp }
  }
  return { kind: 'ok', data: parsed.data, stamp }
}

/** Write the whole file: atomic, durable, 0600. */
export async function writeSecretsFile(file: string, data: SecretsData): Promise<void> {
  await writePrivateFile(file, `${JSON.stringify(SecretsData.parse(data), null, 2)}\n`)
}

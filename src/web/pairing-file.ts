/**
 * `bot/pairing.json`, the paired browsers on disk: each device's id, label, times and its token's
 * SHA-256 (never a token); a file that does not parse is broken, never "nobody paired"; written
 * atomically, 0600. Deliberately decides nothing and caches nothing.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { z } from 'zod'
import { writePrivateFile } from '../core/private-file.ts'

export const PAIRING_FILE = 'pairing.json'
export const MAX_DEVICES = 20
export const LABEL_MAX = 60

const isoTime = z.iso.datetime({ offset: true })

export const pairedDeviceSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  label: z.string().max(LABEL_MAX),
  /** SHA-256 of the device's token, hex. */
  tokenHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: isoTime,
  lastUsedAt: isoTime,
})
export type PairedDevice = z.infer<typeof pairedDeviceSchema>

export const pairingFileSchema = z.strictObject({
  version: z.literal(1),
  devices: z.array(pairedDeviceSchema).max(MAX_DEVICES),
})
export type PairingFile = z.infer<typeof pairingFileSchema>

export type PairingRead = { kind: 'ok'; file: PairingFile } | { kind: 'broken'; problem: string }

/** Read the pairing file; a missing file is an empty one. */
export async function readPairingFile(path: string): Promise<PairingRead> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'ok', file: { version: 1, devices: [] } }
    return { kind: 'broken', problem: `bot/${PAIRING_FILE} cannot be read (${(error as Error).message})` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { kind: 'broken', problem: `bot/${PAIRING_FILE} is not valid JSON` }
  }
  const parsed = pairingFileSchema.safeParse(json)
  return parsed.success ? { kind: 'ok', file: parsed.data } : { kind: 'broken', problem: `bot/${PAIRING_FILE} is not a pairing file this version understands` }
}

/** Write the pairing file atomically, readable by the user only. */
export async function writePairingFile(path: string, file: PairingFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writePrivateFile(path, JSON.stringify(pairingFileSchema.parse(file), null, 2) + '\n')
}

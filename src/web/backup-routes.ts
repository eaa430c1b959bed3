/**
 * `POST /bot-team/api/backup` `{ secrets? }`: the same archive `dsh-bot-team backup` writes, from the
 * running DSH's persistence, as a download — to a paired browser only (it holds every chat).
 * Deliberately no restore over HTTP, no archive kept on the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { takeBackup, type SessionReader } from '../backup/backup.ts'
import { API_CSP, HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

export interface BackupRouteOptions {
  /** The DSH_HOME holding `bot/`, `sessions/` and `storages/`. */
  home: string
  /** The Bots' working folder (the plugin's `workspace`). */
  teamFolder: string
  sessions: () => SessionReader | undefined
}

const bodySchema = z.object({ secrets: z.boolean().optional() }).strict()

export const BACKUP_NOT_PAIRED =
  'A backup holds every chat and memory of the team, so it is given only to the paired team page: open /bot-team in your paired browser, or run `dsh plugin --profile <profile> exec dsh-bot-team backup` on this machine.'

export async function backupApi(req: IncomingMessage, res: ServerResponse, options: BackupRouteOptions, pairing: Pairing): Promise<void> {
  if ((req.method ?? 'GET').toUpperCase() !== 'POST') throw new HttpError(405, `${req.method} not allowed`)
  if (!(await pairing.check(req)).paired) throw new HttpError(403, BACKUP_NOT_PAIRED)
  const body = parseBody(bodySchema, await readJsonBody(req, 1024))
  const sessions = options.sessions()
  if (!sessions) throw new HttpError(503, "DSH's session persistence is not available")
  const { archive, manifest } = await takeBackup({ home: options.home, teamFolder: options.teamFolder, secrets: body.secrets ?? false, sessions })
  const name = `bot-team-backup-${manifest.createdAt.replace(/[:.]/g, '-')}.dshbt`
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': archive.byteLength,
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': API_CSP,
  })
  res.end(archive)
}

/**
 * The team page's "Download a backup" button, server side:
 *   POST /bot-team/api/backup   body `{ "secrets"?: boolean }` → the archive as a download
 * (`application/octet-stream`, `content-disposition: attachment`), the same archive
 * `dsh-bot-team backup` writes (`../backup/backup.ts`), taken from the running DSH's own session
 * persistence while the team runs (one state revision, see there).
 *
 * An archive holds every chat and memory (and secrets when asked), so it is given only to the
 * paired team page (`pairing.check`); a shell, a script or an unpaired browser gets 403 and
 * nothing is read. Deliberately narrow: no restore over HTTP (a restore needs DSH stopped on the
 * target home: `dsh-bot-team restore`), no archive kept on the server.
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

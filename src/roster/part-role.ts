/**
 * The role frozen with a Session part — `bot/parts/<sessionId>.json`: the role the part's tools
 * were offered for, the team section it was told, and the last role change it was told about. Read
 * once when DSH opens the Session, written when a part starts or a checkpoint renews it, so a
 * restart offers the same tools and sends the same bytes. A missing or unreadable file is frozen anew.
 * Deliberately narrow: the file only (0600 durable writes, zod-checked reads); the roster decides.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { Role } from '../core/offer.ts'
import { makePrivateDir, safeSegment, writePrivateFile } from '../core/private-file.ts'

/** The team section's bound (it names at most a few Bots and groups, each name bounded). */
export const TEAM_TEXT_MAX = 4000

export const PartRole = z
  .object({
    role: Role,
    team: z.string().max(TEAM_TEXT_MAX),
    /** The role the Bot was last told it now has (a change that waits for its next part). */
    told: Role.optional(),
  })
  .strict()
export type PartRole = z.infer<typeof PartRole>

export class PartRoles {
  private readonly root: string

  constructor(botDir: string) {
    this.root = path.join(botDir, 'parts')
  }

  private file(sessionId: string): string {
    return path.join(this.root, `${safeSegment(sessionId)}.json`)
  }

  /** The frozen record, or undefined when there is none or it is not one (it is frozen anew). */
  read(sessionId: string): PartRole | undefined {
    const file = this.file(sessionId)
    if (!existsSync(file)) return undefined
    try {
      const parsed = PartRole.safeParse(JSON.parse(readFileSync(file, 'utf8')))
      return parsed.success ? parsed.data : undefined
    } catch {
      return undefined
    }
  }

  async write(sessionId: string, record: PartRole): Promise<void> {
    await makePrivateDir(this.root)
    await writePrivateFile(this.file(sessionId), `${JSON.stringify(record)}\n`)
  }
}

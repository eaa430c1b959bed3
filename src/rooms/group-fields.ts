/**
 * Group fields (pure): the input of `manage_group` and the groups API checked against team state —
 * references resolved to live Bots, the invariants (unique name, 2–12 members, admin a member,
 * notice length) and the admin's self-protection; every refusal `field: message` parts joined by "; ".
 * Deliberately does not check authority, write state or touch DSH.
 */
import { z } from 'zod'
import { byRef, invisibleIn, lookalikeOf, nameKey, normaliseName } from '../core/names.ts'
import type { Bot, Group, TeamState } from '../store/index.ts'
import { formatIssues } from '../core/zod-issues.ts'

export const GROUP_NAME_MAX = 60
export const NOTICE_MAX = 2000
export const MEMBERS_MIN = 2
export const MEMBERS_MAX = 12

const name = z
  .string()
  .refine((raw) => invisibleIn(raw) === undefined, {
    error: (iss) =>
      `name must not contain control characters, format characters or direction marks (it has ${invisibleIn(String(iss.input))}): they make a name look like another`,
  })
  .transform(normaliseName)
  .pipe(z.string().min(1, 'name must not be empty').max(GROUP_NAME_MAX, `name must be at most ${GROUP_NAME_MAX} characters`))
const members = z
  .array(z.string().trim().min(1))
  .min(MEMBERS_MIN, `a group needs at least ${MEMBERS_MIN} members`)
  .max(MEMBERS_MAX, `a group has at most ${MEMBERS_MAX} members`)
/** A member name or id; `none` (or null) for no admin. */
const admin = z.string().trim().min(1).nullable()
const mode = z.enum(['admin', 'everyone'])
const notice = z.string().max(NOTICE_MAX, `notice must be at most ${NOTICE_MAX} characters`)

export const GroupCreateInput = z.object({ name, members, admin: admin.optional(), mode: mode.default('admin'), notice: notice.default('') }).strict()
export const GroupUpdateInput = z
  .object({ name: name.optional(), members: members.optional(), admin: admin.optional(), mode: mode.optional(), notice: notice.optional() })
  .strict()

export type GroupFields = Pick<Group, 'name' | 'members' | 'mode' | 'notice'> & { admin?: string | undefined }

export type FieldResult = { ok: true; value: GroupFields } | { ok: false; reason: string }

/** A live Bot by id, or by name (`nameKey`: 'ａｄａ', 'ADA' and 'Ada' are one name). */
function liveBot(state: Readonly<TeamState>, ref: string): Bot | undefined {
  return byRef(
    Object.values(state.bots).filter((b) => !b.deleted),
    ref,
  )
}

/** Whether a live group other than `exceptId` has this name (compared by `nameKey`). */
export function groupNameTaken(state: Readonly<TeamState>, candidate: string, exceptId?: string): boolean {
  const key = nameKey(candidate)
  return Object.values(state.groups).some((g) => !g.deleted && g.id !== exceptId && nameKey(g.name) === key)
}

function resolve(
  state: Readonly<TeamState>,
  fields: { name: string; members: string[]; admin?: string | null | undefined; mode: Group['mode']; notice: string },
  exceptId?: string,
): FieldResult {
  if (groupNameTaken(state, fields.name, exceptId)) return { ok: false, reason: `name: a group named "${fields.name}" already exists, choose another name` }
  const lookalike = lookalikeOf(fields.name, state, exceptId)
  if (lookalike) return { ok: false, reason: `name: "${fields.name}" looks like ${lookalike} (their letters are confusable), choose another name` }
  const ids: string[] = []
  for (const ref of fields.members) {
    const bot = liveBot(state, ref)
    if (!bot) return { ok: false, reason: `members: no live Bot named or with id "${ref}" (call list_bots)` }
    if (ids.includes(bot.id)) return { ok: false, reason: `members: ${bot.name} is listed twice` }
    ids.push(bot.id)
  }
  let adminId: string | undefined
  if (fields.admin !== undefined && fields.admin !== null && fields.admin.toLowerCase() !== 'none') {
    const bot = liveBot(state, fields.admin)
    if (!bot || !ids.includes(bot.id)) return { ok: false, reason: `admin: the admin must be one of the members (got "${fields.admin}")` }
    adminId = bot.id
  }
  return { ok: true, value: { name: fields.name, members: ids, mode: fields.mode, notice: fields.notice, ...(adminId ? { admin: adminId } : {}) } }
}

/** A new group's fields, resolved against live Bots. */
export function resolveCreate(state: Readonly<TeamState>, raw: unknown): FieldResult {
  const parsed = GroupCreateInput.safeParse(raw)
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error, { max: 4 }) }
  return resolve(state, parsed.data)
}

/**
 * A group's fields after a change. `callerAdminOnly`: the caller is this group's admin and not a
 * Main Bot or the user — it cannot leave the group adminless or remove itself while admin.
 */
export function resolveUpdate(state: Readonly<TeamState>, group: Group, raw: unknown, callerAdminOnly?: string): FieldResult {
  const parsed = GroupUpdateInput.safeParse(raw)
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error, { max: 4 }) }
  const p = parsed.data
  if (callerAdminOnly) {
    if (p.admin === null || p.admin?.toLowerCase() === 'none')
      return { ok: false, reason: 'admin: as its admin you cannot leave the group without an admin, hand the admin role to another member instead' }
    const handsOver = p.admin !== undefined && liveBot(state, p.admin)?.id !== callerAdminOnly
    const staysMember = p.members === undefined || p.members.some((ref) => liveBot(state, ref)?.id === callerAdminOnly)
    if (!staysMember && !handsOver)
      return {
        ok: false,
        reason: 'members: as its admin you cannot remove yourself from the group, hand the admin role to another member first, or ask a Main Bot or the user',
      }
  }
  const result = resolve(
    state,
    {
      name: p.name ?? group.name,
      members: p.members ?? group.members.filter((id) => state.bots[id] && !state.bots[id]!.deleted),
      admin: p.admin === undefined ? (group.admin ? group.admin : null) : p.admin,
      mode: p.mode ?? group.mode,
      notice: p.notice ?? group.notice,
    },
    group.id,
  )
  return result
}

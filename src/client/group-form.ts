/**
 * The Group dialog's pure parts: the shape check of a `/groups` answer, moving a member in the
 * speaking order, and the body a save sends (on change only what differs). Deliberately no React,
 * no I/O, no validation of the values.
 */
export interface GroupDetails {
  id: string
  name: string
  members: { id: string; name: string }[]
  admin: { id: string; name: string } | null
  mode: 'admin' | 'everyone'
  notice: string
}

export interface GroupLimits {
  nameMax: number
  noticeMax: number
  membersMin: number
  membersMax: number
}

/** What the dialog edits. `admin` is a member's id, or '' for none. */
export interface GroupForm {
  name: string
  members: string[]
  admin: string
  mode: 'admin' | 'everyone'
  notice: string
}

/** The fields the service's refusals name (`rooms/group-fields.ts`, and the delete's reason). */
export const GROUP_FIELDS = ['name', 'members', 'admin', 'mode', 'notice', 'reason'] as const

/** Used until the API answered (the service's own numbers replace them). */
export const FALLBACK_LIMITS: GroupLimits = { nameMax: 60, noticeMax: 2000, membersMin: 2, membersMax: 12 }

const GROUPS_MAX = 500
const str = (v: unknown, max = 200): v is string => typeof v === 'string' && v.length <= max
const who = (v: unknown): v is { id: string; name: string } =>
  !!v && typeof v === 'object' && str((v as { id?: unknown }).id) && str((v as { name?: unknown }).name)

/** A `/groups` answer, checked for shape (pure): its groups (bounded) and the limits. */
export function readGroups(value: unknown): { groups: GroupDetails[]; limits: GroupLimits } {
  const v = (value && typeof value === 'object' ? value : {}) as { groups?: unknown; limits?: unknown }
  const groups = (Array.isArray(v.groups) ? v.groups.slice(0, GROUPS_MAX) : []).flatMap((g): GroupDetails[] => {
    const x = (g ?? {}) as Record<string, unknown>
    if (!str(x.id) || !str(x.name) || !Array.isArray(x.members) || !x.members.every(who) || (x.admin !== null && !who(x.admin))) return []
    if ((x.mode !== 'admin' && x.mode !== 'everyone') || !str(x.notice, 20_000)) return []
    return [
      {
        id: x.id,
        name: x.name,
        members: (x.members as { id: string; name: string }[]).slice(0, 50),
        admin: x.admin as GroupDetails['admin'],
        mode: x.mode,
        notice: x.notice,
      },
    ]
  })
  const l = (v.limits ?? {}) as Record<string, unknown>
  const n = (k: keyof GroupLimits) => (typeof l[k] === 'number' && Number.isInteger(l[k]) && (l[k] as number) > 0 ? (l[k] as number) : FALLBACK_LIMITS[k])
  return { groups, limits: { nameMax: n('nameMax'), noticeMax: n('noticeMax'), membersMin: n('membersMin'), membersMax: n('membersMax') } }
}

/** The form for a group (or an empty one for a new group). */
export function formOf(group: GroupDetails | undefined): GroupForm {
  if (!group) return { name: '', members: [], admin: '', mode: 'admin', notice: '' }
  return { name: group.name, members: group.members.map((m) => m.id), admin: group.admin?.id ?? '', mode: group.mode, notice: group.notice }
}

/** The list with the member at `index` moved one place up (-1) or down (+1); unchanged at an end. */
export function moveMember(members: readonly string[], index: number, delta: -1 | 1): string[] {
  const to = index + delta
  const out = [...members]
  if (index < 0 || index >= out.length || to < 0 || to >= out.length) return out
  ;[out[index], out[to]] = [out[to]!, out[index]!]
  return out
}

/** Remove a member; an admin who leaves the members is no longer chosen. */
export function withoutMember(form: GroupForm, id: string): GroupForm {
  return { ...form, members: form.members.filter((m) => m !== id), admin: form.admin === id ? '' : form.admin }
}

/** The body a save sends: every field on create, only what changed on edit (pure). */
export function groupBody(form: GroupForm, group: GroupDetails | undefined): Record<string, unknown> {
  const admin = form.admin || 'none'
  if (!group) return { name: form.name, members: form.members, ...(form.admin ? { admin } : {}), mode: form.mode, notice: form.notice }
  const before = formOf(group)
  const out: Record<string, unknown> = {}
  if (form.name !== before.name) out.name = form.name
  if (form.members.join('\n') !== before.members.join('\n')) out.members = form.members
  if (form.admin !== before.admin) out.admin = admin
  if (form.mode !== before.mode) out.mode = form.mode
  if (form.notice !== before.notice) out.notice = form.notice
  return out
}

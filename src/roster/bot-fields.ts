/**
 * Bot fields (pure): the rules of each editable field as zod — name (no control, format or invisible
 * characters), role, instructions, model, avatar, colour, preset, flags, working folder — the create
 * and update inputs, name uniqueness; lengths count code points. Deliberately does not read state,
 * decide who may change a Bot, or check a model or a lookalike name (the roster does).
 */
import { isAbsolute, normalize, posix, win32 } from 'node:path'
import { z } from 'zod'
import { invisibleIn, nameKey, normaliseName } from '../core/names.ts'
import { charCount } from '../core/text-limits.ts'

export { charCount, nameKey, normaliseName }

export const NAME_MAX = 40
export const ROLE_MAX = 24
export const INSTRUCTIONS_MAX = 8000
export const MODEL_MAX = 200
export const IMAGE_PATH_MAX = 200
export const WORK_FOLDER_MAX = 1000

export const AVATAR_SHAPES = ['circle', 'square', 'hexagon', 'diamond', 'triangle', 'star'] as const

export const PERMISSION_PRESETS = ['read-only', 'workspace-write', 'danger-full-access'] as const
export type PermissionPreset = (typeof PERMISSION_PRESETS)[number]
export const DEFAULT_PERMISSION_PRESET: PermissionPreset = 'workspace-write'

/** Eight colours, readable as a badge on light and dark backgrounds. Order is part of the API. */
export const COLOUR_PALETTE = ['#e03131', '#e8590c', '#2f9e44', '#0c8599', '#1971c2', '#6741d9', '#c2255c', '#a0522d'] as const

/** The word `@all` uses; no Bot may be called that. */
export const RESERVED_NAME = 'all'

// eslint-disable-next-line no-control-regex
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a working folder may not hold.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u
const MODEL_RE = /^[A-Za-z0-9._:-]+\/[A-Za-z0-9._:-]+$/
const COLOUR_RE = /^#[0-9a-fA-F]{6}$/

type Ctx = z.core.$RefinementCtx<string>

function issue(ctx: Ctx, value: string, message: string): void {
  ctx.addIssue({ code: 'custom', message, input: value })
}

/** A Bot's name: 1–40 characters, no control characters, no '@', not 'all'. */
export const botNameSchema = z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be text') }).transform((raw, ctx) => {
  const name = normaliseName(raw)
  const before = ctx.issues.length
  const hidden = invisibleIn(raw)
  if (hidden)
    issue(ctx, raw, `must not contain control characters, format characters or direction marks (it has ${hidden}): they make a name look like another`)
  if (name === '') issue(ctx, raw, 'must not be empty')
  const n = charCount(name)
  if (n > NAME_MAX) issue(ctx, raw, `must be at most ${NAME_MAX} characters (it has ${n})`)
  if (name.normalize('NFKC').includes('@')) issue(ctx, raw, "must not contain '@' (mentions are written @Name)")
  if (name !== '' && nameKey(name) === RESERVED_NAME) issue(ctx, raw, "'all' is reserved for @all; choose another name")
  return ctx.issues.length > before ? z.NEVER : name
})

/** The role label shown under the name ("Reviewer"): trimmed, at most 24 characters. */
export const botRoleSchema = z.string({ error: 'must be text' }).transform((raw, ctx) => {
  const role = raw.normalize('NFC').trim()
  const before = ctx.issues.length
  if (CONTROL.test(raw)) issue(ctx, raw, 'must not contain control characters, line breaks or direction marks')
  const n = charCount(role)
  if (n > ROLE_MAX) issue(ctx, raw, `must be at most ${ROLE_MAX} characters (it has ${n})`)
  return ctx.issues.length > before ? z.NEVER : role
})

/** The Bot's standing instructions (persona). Kept as written; at most 8000 characters. */
export const botInstructionsSchema = z.string({ error: 'must be text' }).check((ctx) => {
  const n = charCount(ctx.value)
  if (n > INSTRUCTIONS_MAX) {
    ctx.issues.push({ code: 'custom', message: `must be at most ${INSTRUCTIONS_MAX} characters (it has ${n})`, input: ctx.value })
  }
})

/** `provider/model`, e.g. `deepseek/deepseek-chat`. Trimmed. */
export const botModelSchema = z.string({ error: 'must be text' }).transform((raw, ctx) => {
  const model = raw.trim()
  if (charCount(model) > MODEL_MAX) {
    issue(ctx, raw, `must be at most ${MODEL_MAX} characters`)
    return z.NEVER
  }
  if (!MODEL_RE.test(model)) {
    issue(
      ctx,
      raw,
      "must be written provider/model (letters, digits and . _ : - on both sides of one '/'), e.g. deepseek/deepseek-chat; leave it out for the DSH default",
    )
    return z.NEVER
  }
  return model
})

function imagePathProblem(p: string): string | undefined {
  if (p === '') return 'must not be empty'
  if (charCount(p) > IMAGE_PATH_MAX) return `must be at most ${IMAGE_PATH_MAX} characters`
  if (CONTROL.test(p)) return 'must not contain control characters'
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return 'must be a path relative to the bot folder, not an absolute path'
  const parts = p.split(/[\\/]/)
  if (parts.includes('..')) return "must stay inside the bot folder (no '..')"
  if (parts.some((s) => s === '' || s === '.')) return "must be a plain relative path (no empty or '.' parts)"
  return undefined
}

const avatarObjectError = (iss: { code?: string }): string | undefined =>
  iss.code === 'unrecognized_keys' ? 'is not an avatar field; an avatar has kind and shape, or kind and image' : undefined

const shapeAvatarSchema = z.strictObject(
  {
    kind: z.literal('shape'),
    shape: z.enum(AVATAR_SHAPES, { error: `must be one of ${AVATAR_SHAPES.join(', ')}` }),
  },
  { error: avatarObjectError },
)

const imageAvatarSchema = z.strictObject(
  {
    kind: z.literal('image'),
    image: z.string({ error: 'must be text' }).check((ctx) => {
      const problem = imagePathProblem(ctx.value)
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value })
    }),
  },
  { error: avatarObjectError },
)

/** A shape, or a small image stored under the bot folder (a relative path, never absolute). */
export const botAvatarSchema = z.discriminatedUnion('kind', [shapeAvatarSchema, imageAvatarSchema], {
  error: `must be {"kind":"shape","shape":…} with shape one of ${AVATAR_SHAPES.join(', ')}, or {"kind":"image","image":"<path under the bot folder>"}`,
})
export type BotAvatar = z.output<typeof botAvatarSchema>

/** `#rrggbb`; stored lower-case. */
export const botColourSchema = z
  .string({ error: 'must be text' })
  .regex(COLOUR_RE, { error: 'must be a colour written #rrggbb, e.g. #1971c2' })
  .transform((c) => c.toLowerCase())

export const permissionPresetSchema = z.enum(PERMISSION_PRESETS, { error: `must be one of ${PERMISSION_PRESETS.join(', ')}` })

/** A Bot's working folder: an absolute path, normalised (the roster checks that it is a directory). */
export const workFolderSchema = z.string({ error: 'must be text: an absolute folder path' }).transform((raw, ctx) => {
  const trimmed = raw.trim()
  if (CONTROL.test(raw)) {
    issue(ctx, raw, 'must not contain control characters or line breaks')
    return z.NEVER
  }
  if (trimmed === '') {
    issue(ctx, raw, 'must not be empty; leave it out (or null) for the team workspace')
    return z.NEVER
  }
  if (charCount(trimmed) > WORK_FOLDER_MAX) {
    issue(ctx, raw, `must be at most ${WORK_FOLDER_MAX} characters`)
    return z.NEVER
  }
  const windows = /^[A-Za-z]:[\\/]/.test(trimmed)
  if (!windows && !isAbsolute(trimmed)) {
    issue(ctx, raw, 'must be an absolute path, e.g. /home/me/code/project')
    return z.NEVER
  }
  const folder = windows ? win32.normalize(trimmed) : normalize(trimmed)
  const root = windows ? win32.parse(folder).root : posix.parse(folder).root
  return folder.length > root.length ? folder.replace(/[\\/]+$/, '') : folder
})

const flag = z.boolean({ error: 'must be true or false' })

/** The fixed default colour of a name: the same name (any case) always gets the same colour. */
export function defaultColour(name: string): string {
  // FNV-1a over the code points of the name's key: stable across runs, machines and versions.
  let h = 0x811c9dc5
  for (const ch of nameKey(name)) {
    h ^= ch.codePointAt(0)!
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return COLOUR_PALETTE[h % COLOUR_PALETTE.length]!
}

export const DEFAULT_AVATAR: Readonly<BotAvatar> = Object.freeze({ kind: 'shape', shape: 'circle' })

/** Every Bot field, each optional: what an update may carry (creation requires `name`). */
const optionalFields = {
  name: botNameSchema.optional(),
  role: botRoleSchema.optional(),
  instructions: botInstructionsSchema.optional(),
  model: botModelSchema.optional(),
  avatar: botAvatarSchema.optional(),
  colour: botColourSchema.optional(),
  permissionPreset: permissionPresetSchema.optional(),
  pinned: flag.optional(),
  hidden: flag.optional(),
  main: flag.optional(),
  workFolder: workFolderSchema.optional(),
}

const FIELD_NAMES = Object.keys(optionalFields)

/** Messages for issues the object itself raises (unknown fields, not an object). */
const objectError = (iss: { code?: string }): string | undefined => {
  if (iss.code === 'unrecognized_keys') return `is not a Bot field; the fields are ${FIELD_NAMES.join(', ')}`
  if (iss.code === 'invalid_type') return "must be an object with the Bot's fields"
  return undefined
}

/** What creating a Bot accepts: `name` is required, everything else has a default. */
export const BotCreateInput = z.strictObject({ ...optionalFields, name: botNameSchema }, { error: objectError }).transform((v) => {
  const out: BotCreate = {
    name: v.name,
    role: v.role ?? '',
    instructions: v.instructions ?? '',
    avatar: v.avatar ?? { ...DEFAULT_AVATAR },
    colour: v.colour ?? defaultColour(v.name),
    permissionPreset: v.permissionPreset ?? DEFAULT_PERMISSION_PRESET,
    pinned: v.pinned ?? false,
    hidden: v.hidden ?? false,
    main: v.main ?? false,
  }
  if (v.model !== undefined) out.model = v.model
  if (v.workFolder !== undefined) out.workFolder = v.workFolder
  return out
})

/** A new Bot's fields, normalised and with every default filled in (`model` absent = DSH default). */
export interface BotCreate {
  name: string
  role: string
  instructions: string
  model?: string
  avatar: BotAvatar
  colour: string
  permissionPreset: PermissionPreset
  pinned: boolean
  hidden: boolean
  main: boolean
  /** Absent = the team's workspace. */
  workFolder?: string
}

/** What changing a Bot accepts: any of the fields, at least one. `model: null` = DSH default, `workFolder: null` = the team workspace. */
export const BotUpdateInput = z
  .strictObject({ ...optionalFields, model: botModelSchema.nullable().optional(), workFolder: workFolderSchema.nullable().optional() }, { error: objectError })
  .refine((v) => Object.values(v).some((x) => x !== undefined), {
    error: `nothing to change: give at least one of ${FIELD_NAMES.join(', ')}`,
    // Only for an otherwise valid input: `{ foo: 1 }` is answered by "foo: is not a Bot field" alone.
    when: (payload) => payload.issues.length === 0,
  })

export type BotUpdateRaw = z.input<typeof BotUpdateInput>

/** A Bot as far as name uniqueness cares: deleted Bots free their name. */
export interface BotNameEntry {
  id: string
  name: string
  deleted?: unknown
}

/**
 * Whether `name` clashes (case-insensitively, see `nameKey`) with a live Bot other than
 * `exceptId` (pass the Bot's own id when renaming it). Accepts a list or the store's id → Bot map.
 */
export function nameTaken(name: string, bots: Iterable<BotNameEntry> | Readonly<Record<string, BotNameEntry>>, exceptId?: string): boolean {
  const key = nameKey(name)
  const list: Iterable<BotNameEntry> =
    Symbol.iterator in bots ? (bots as Iterable<BotNameEntry>) : Object.values(bots as Readonly<Record<string, BotNameEntry>>)
  for (const b of list) {
    if (b.deleted || b.id === exceptId) continue
    if (nameKey(b.name) === key) return true
  }
  return false
}

/** The refusal line for a name clash, in the same `field: message` form as `formatIssues`. */
export function nameTakenMessage(name: string): string {
  return `name: another Bot is already called ${JSON.stringify(normaliseName(name))} (names are unique, ignoring case)`
}

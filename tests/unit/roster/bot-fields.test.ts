/**
 * Bot field rules (features §1): every field valid and invalid, unicode names, case-insensitive
 * uniqueness, strict unknown-field refusal, defaults, and the `formatIssues` lines quoted by tool
 * refusals and HTTP 400s. Everything produced must also fit the store's own schema.
 */
import { describe, expect, it } from 'vitest'
import {
  BotCreateInput,
  BotUpdateInput,
  COLOUR_PALETTE,
  DEFAULT_PERMISSION_PRESET,
  botAvatarSchema,
  botColourSchema,
  botInstructionsSchema,
  botModelSchema,
  botNameSchema,
  botRoleSchema,
  charCount,
  defaultColour,
  nameKey,
  nameTaken,
  nameTakenMessage,
  normaliseName,
  permissionPresetSchema,
} from '../../../src/roster/bot-fields.ts'
import { formatIssues } from '../../../src/core/zod-issues.ts'
import { botSchema } from '../../../src/store/schema.ts'
import type { z } from 'zod'

/** Parse and return either the value or the formatted issue lines. */
function run(schema: z.ZodType, input: unknown): { ok: true; value: unknown } | { ok: false; lines: string } {
  const r = schema.safeParse(input)
  // A bare field schema reports its own issues at the root ("input: …"); drop that prefix here.
  return r.success ? { ok: true, value: r.data } : { ok: false, lines: formatIssues(r.error).replace(/(^|; )input: /g, '$1') }
}

type Case = [label: string, input: unknown, expected: { value: unknown } | { error: RegExp }]

function table(name: string, schema: z.ZodType, cases: Case[]): void {
  describe(name, () => {
    it.each(cases)('%s', (_label, input, want) => {
      const got = run(schema, input)
      if ('value' in want) {
        expect(got).toEqual({ ok: true, value: want.value })
      } else {
        expect(got.ok).toBe(false)
        if (!got.ok) expect(got.lines).toMatch(want.error)
      }
    })
  })
}

const x = (n: number, ch = 'x') => ch.repeat(n)

table('name', botNameSchema, [
  ['plain', 'Ada', { value: 'Ada' }],
  ['CJK', '小明', { value: '小明' }],
  ['CJK, 40 characters', x(40, '明'), { value: x(40, '明') }],
  ['emoji outside the BMP count as one character each', x(40, '🤖'), { value: x(40, '🤖') }],
  ['41 emoji', x(41, '🤖'), { error: /^must be at most 40 characters \(it has 41\)$/ }],
  ['Cyrillic, Arabic and accents', 'Ёжик-Ḁ عمر', { value: 'Ёжик-Ḁ عمر' }],
  ['trimmed', '  Ada  ', { value: 'Ada' }],
  ['ideographic space trimmed', '\u3000小明\u3000', { value: '小明' }],
  ['inner spaces collapse', 'Code   Reviewer', { value: 'Code Reviewer' }],
  ['NFC normalised', 'Jose\u0301', { value: 'Jos\u00e9' }],
  ['exactly 40', x(40), { value: x(40) }],
  ['41', x(41), { error: /^must be at most 40 characters \(it has 41\)$/ }],
  ['40 after trimming', `  ${x(40)}  `, { value: x(40) }],
  ['one character', 'A', { value: 'A' }],
  ['empty', '', { error: /^must not be empty$/ }],
  ['only spaces', '   ', { error: /^must not be empty$/ }],
  ['tab', 'Ada\tLovelace', { error: /control characters/ }],
  ['newline', 'Ada\nLovelace', { error: /control characters/ }],
  ['NUL', 'Ada\u0000', { error: /control characters/ }],
  ['DEL', 'Ada\u007f', { error: /control characters/ }],
  ['C1 control', 'Ada\u0085', { error: /control characters/ }],
  ['line separator', 'Ada\u2028', { error: /control characters/ }],
  ['right-to-left override', 'Ada\u202egpj', { error: /direction marks/ }],
  ['zero-width joiner in an emoji sequence', '👩\u200d💻 Dev', { value: '👩\u200d💻 Dev' }],
  ['zero-width joiner between letters', 'Ma\u200din', { error: /direction marks \(it has U\+200D\)/ }],
  ['zero-width space', 'Ma\u200bin', { error: /format characters .*U\+200B/ }],
  ['soft hyphen', 'Ma\u00adin', { error: /U\+00AD/ }],
  ['word joiner', 'Ma\u2060in', { error: /U\+2060/ }],
  ['left-to-right mark', 'Main\u200e', { error: /U\+200E/ }],
  ['byte order mark', '\ufeffMain', { error: /U\+FEFF/ }],
  ['escape (ANSI colour)', 'Ada\u001b[31m', { error: /U\+001B/ }],
  ['first strong isolate', 'Ada\u2068x', { error: /U\+2068/ }],
  ['@', 'Ada@home', { error: /must not contain '@'/ }],
  ['leading @', '@Ada', { error: /mentions are written @Name/ }],
  ['full-width @', 'Ada＠home', { error: /must not contain '@'/ }],
  ['all', 'all', { error: /'all' is reserved for @all/ }],
  ['ALL', 'ALL', { error: /reserved/ }],
  [' All ', ' All ', { error: /reserved/ }],
  ['full-width ａｌｌ', 'ａｌｌ', { error: /reserved/ }],
  ['"all" inside a name is fine', 'Allie', { value: 'Allie' }],
  ['"all hands" is fine', 'all hands', { value: 'all hands' }],
  ['several problems at once, one line each', `@${x(41)}`, { error: /^must be at most 40 characters \(it has 42\); must not contain '@'/ }],
  ['number', 42, { error: /must be text/ }],
  ['missing', undefined, { error: /is required/ }],
])

table('role label', botRoleSchema, [
  ['empty is fine', '', { value: '' }],
  ['plain', 'Reviewer', { value: 'Reviewer' }],
  ['CJK', '代码审查', { value: '代码审查' }],
  ['trimmed', ' Researcher ', { value: 'Researcher' }],
  ['exactly 24', x(24), { value: x(24) }],
  ['25', x(25), { error: /must be at most 24 characters \(it has 25\)/ }],
  ['24 CJK', x(24, '审'), { value: x(24, '审') }],
  ['newline', 'Re\nviewer', { error: /control characters/ }],
  ['not text', ['Reviewer'], { error: /must be text/ }],
])

table('instructions', botInstructionsSchema, [
  ['empty', '', { value: '' }],
  ['multi-line, kept exactly as written', '  Be brief.\n\tCite files.\n', { value: '  Be brief.\n\tCite files.\n' }],
  ['exactly 8000', x(8000), { value: x(8000) }],
  ['8001', x(8001), { error: /must be at most 8000 characters \(it has 8001\)/ }],
  ['8000 CJK', x(8000, '中'), { value: x(8000, '中') }],
  ['not text', null, { error: /must be text/ }],
])

table('model', botModelSchema, [
  ['provider/model', 'deepseek/deepseek-chat', { value: 'deepseek/deepseek-chat' }],
  ['dots, colons, underscores', 'openai/gpt-4.1_mini:2025-04', { value: 'openai/gpt-4.1_mini:2025-04' }],
  ['trimmed', ' deepseek/deepseek-reasoner ', { value: 'deepseek/deepseek-reasoner' }],
  ['no provider', 'deepseek-chat', { error: /must be written provider\/model/ }],
  ['empty provider', '/deepseek-chat', { error: /provider\/model/ }],
  ['empty model', 'deepseek/', { error: /provider\/model/ }],
  ['two slashes', 'a/b/c', { error: /provider\/model/ }],
  ['space inside', 'deep seek/chat', { error: /provider\/model/ }],
  ['non-ASCII', 'deepseek/模型', { error: /provider\/model/ }],
  ['empty', '', { error: /provider\/model/ }],
  ['too long', `p/${x(199)}`, { error: /at most 200 characters/ }],
])

table('avatar', botAvatarSchema, [
  ...(['circle', 'square', 'hexagon', 'diamond', 'triangle', 'star'] as const).map(
    (shape): Case => [`shape ${shape}`, { kind: 'shape', shape }, { value: { kind: 'shape', shape } }],
  ),
  ['unknown shape', { kind: 'shape', shape: 'blob' }, { error: /^shape: must be one of circle, square, hexagon, diamond, triangle, star$/ }],
  ['shape missing', { kind: 'shape' }, { error: /^shape: must be one of/ }],
  ['image under the bot folder', { kind: 'image', image: 'avatars/bot-1.png' }, { value: { kind: 'image', image: 'avatars/bot-1.png' } }],
  ['image with a CJK file name', { kind: 'image', image: 'avatars/小明.png' }, { value: { kind: 'image', image: 'avatars/小明.png' } }],
  ['absolute path', { kind: 'image', image: '/etc/passwd' }, { error: /^image: must be a path relative to the bot folder/ }],
  ['backslash-absolute', { kind: 'image', image: '\\\\server\\share.png' }, { error: /relative to the bot folder/ }],
  ['drive letter', { kind: 'image', image: 'C:\\pics\\a.png' }, { error: /relative to the bot folder/ }],
  ['..', { kind: 'image', image: '../secrets.json' }, { error: /^image: must stay inside the bot folder/ }],
  ['.. in the middle', { kind: 'image', image: 'avatars/../../x.png' }, { error: /no '\.\.'/ }],
  ['.. with backslashes', { kind: 'image', image: 'avatars\\..\\..\\x.png' }, { error: /no '\.\.'/ }],
  ['empty', { kind: 'image', image: '' }, { error: /must not be empty/ }],
  ['double slash', { kind: 'image', image: 'avatars//a.png' }, { error: /plain relative path/ }],
  ['NUL', { kind: 'image', image: 'a.png\u0000.txt' }, { error: /control characters/ }],
  ['unknown kind', { kind: 'emoji', emoji: '🤖' }, { error: /^kind: must be \{"kind":"shape"/ }],
  ['not an object', 'circle', { error: /must be \{"kind":"shape"/ }],
  ['extra field', { kind: 'shape', shape: 'star', size: 3 }, { error: /^size: is not an avatar field; an avatar has kind and shape, or kind and image$/ }],
])

table('colour', botColourSchema, [
  ['lower-case', '#1971c2', { value: '#1971c2' }],
  ['upper-case is stored lower-case', '#ABCDEF', { value: '#abcdef' }],
  ['short form', '#abc', { error: /^must be a colour written #rrggbb/ }],
  ['no #', '1971c2', { error: /#rrggbb/ }],
  ['name', 'red', { error: /#rrggbb/ }],
  ['alpha', '#1971c2ff', { error: /#rrggbb/ }],
  ['not hex', '#gggggg', { error: /#rrggbb/ }],
])

table('permission preset', permissionPresetSchema, [
  ['read-only', 'read-only', { value: 'read-only' }],
  ['workspace-write', 'workspace-write', { value: 'workspace-write' }],
  ['danger-full-access', 'danger-full-access', { value: 'danger-full-access' }],
  ['unknown', 'root', { error: /^must be one of read-only, workspace-write, danger-full-access$/ }],
  ['wrong case', 'Read-Only', { error: /must be one of/ }],
])

describe('BotCreateInput', () => {
  it('fills every default; the colour comes from the name', () => {
    expect(BotCreateInput.parse({ name: ' 小明 ' })).toEqual({
      name: '小明',
      role: '',
      instructions: '',
      avatar: { kind: 'shape', shape: 'circle' },
      colour: defaultColour('小明'),
      permissionPreset: DEFAULT_PERMISSION_PRESET,
      pinned: false,
      hidden: false,
      main: false,
    })
    expect(DEFAULT_PERMISSION_PRESET).toBe('workspace-write')
    expect(BotCreateInput.parse({ name: 'Ada' })).not.toHaveProperty('model')
  })

  it('keeps every field given', () => {
    const input = {
      name: 'Ada',
      role: 'Reviewer',
      instructions: 'Review diffs.',
      model: 'deepseek/deepseek-chat',
      avatar: { kind: 'image', image: 'avatars/ada.png' },
      colour: '#C2255C',
      permissionPreset: 'read-only',
      pinned: true,
      hidden: true,
      main: true,
    }
    expect(BotCreateInput.parse(input)).toEqual({ ...input, colour: '#c2255c' })
  })

  it('what it produces fits the store schema', () => {
    for (const name of ['Ada', '小明', x(40, '🤖'), x(40, '明')]) {
      const fields = BotCreateInput.parse({ name, role: x(24, '审') })
      const bot = { ...fields, id: 'bot-1', createdBy: 'user', createdAt: new Date(0).toISOString(), sessionParts: [], acceptsDelegatedWork: false }
      expect(botSchema.safeParse(bot).success).toBe(true)
    }
  })

  const refused: Array<[string, unknown, string]> = [
    ['name missing', {}, 'name: is required'],
    ['name too long', { name: x(41) }, 'name: must be at most 40 characters (it has 41)'],
    [
      'unknown field',
      { name: 'Ada', age: 3 },
      'age: is not a Bot field; the fields are name, role, instructions, model, avatar, colour, permissionPreset, pinned, hidden, main, workFolder',
    ],
    ['id cannot be chosen', { name: 'Ada', id: 'bot-9' }, 'id: is not a Bot field'],
    ['createdBy cannot be chosen', { name: 'Ada', createdBy: 'bot-1' }, 'createdBy: is not a Bot field'],
    ['American spelling is not an alias', { name: 'Ada', color: '#ffffff' }, 'color: is not a Bot field'],
    ['flag as a string', { name: 'Ada', pinned: 'yes' }, 'pinned: must be true or false'],
    ['null model on create', { name: 'Ada', model: null }, 'model: must be text'],
    ['not an object', 'Ada', "input: must be an object with the Bot's fields"],
    ['array', ['Ada'], "input: must be an object with the Bot's fields"],
    ['nested avatar error', { name: 'Ada', avatar: { kind: 'image', image: '../x.png' } }, "avatar.image: must stay inside the bot folder (no '..')"],
  ]
  it.each(refused)('refuses %s', (_label, input, line) => {
    const r = BotCreateInput.safeParse(input)
    expect(r.success).toBe(false)
    if (!r.success) expect(formatIssues(r.error)).toContain(line)
  })
})

describe('BotUpdateInput', () => {
  it('accepts any single field, normalised', () => {
    expect(BotUpdateInput.parse({ name: '  Ada  Lovelace ' })).toEqual({ name: 'Ada Lovelace' })
    expect(BotUpdateInput.parse({ hidden: false })).toEqual({ hidden: false })
    expect(BotUpdateInput.parse({ main: false })).toEqual({ main: false })
    expect(BotUpdateInput.parse({ colour: '#FFFFFF' })).toEqual({ colour: '#ffffff' })
  })

  it('workFolder: an absolute folder path, normalised; null means back to the team workspace', () => {
    expect(BotUpdateInput.parse({ workFolder: ' /home/me/code/../code//x/ ' })).toEqual({ workFolder: '/home/me/code/x' })
    expect(BotUpdateInput.parse({ workFolder: '/' })).toEqual({ workFolder: '/' })
    expect(BotUpdateInput.parse({ workFolder: 'C:\\Users\\me\\x\\' })).toEqual({ workFolder: 'C:\\Users\\me\\x' })
    expect(BotUpdateInput.parse({ workFolder: null })).toEqual({ workFolder: null })
    expect(BotCreateInput.parse({ name: 'Ada', workFolder: '/srv/x' }).workFolder).toBe('/srv/x')
    expect(BotCreateInput.parse({ name: 'Ada' })).not.toHaveProperty('workFolder')
    const refusals: Array<[unknown, string]> = [
      ['code/x', 'workFolder: must be an absolute path'],
      ['~/code/x', 'workFolder: must be an absolute path'],
      ['  ', 'workFolder: must not be empty'],
      ['/a\u0000b', 'workFolder: must not contain control characters'],
      [`/${'x'.repeat(1000)}`, 'workFolder: must be at most 1000 characters'],
      [7, 'workFolder: must be text'],
    ]
    for (const [workFolder, line] of refusals) {
      const r = BotUpdateInput.safeParse({ workFolder })
      expect(r.success).toBe(false)
      if (!r.success) expect(formatIssues(r.error)).toContain(line)
    }
  })

  it('model: null means back to the DSH default', () => {
    expect(BotUpdateInput.parse({ model: null })).toEqual({ model: null })
  })

  it('does not invent defaults (a rename keeps the colour)', () => {
    expect(BotUpdateInput.parse({ name: 'Bob' })).toEqual({ name: 'Bob' })
  })

  it('refuses an empty change', () => {
    for (const input of [{}, { name: undefined }]) {
      const r = BotUpdateInput.safeParse(input)
      expect(r.success).toBe(false)
      if (!r.success)
        expect(formatIssues(r.error)).toBe(
          'input: nothing to change: give at least one of name, role, instructions, model, avatar, colour, permissionPreset, pinned, hidden, main, workFolder',
        )
    }
  })

  it('refuses unknown fields, one line each, and nothing else', () => {
    const r = BotUpdateInput.safeParse({ age: 3, deleted: true })
    expect(r.success).toBe(false)
    if (!r.success) {
      expect(formatIssues(r.error)).toBe(
        [
          'age: is not a Bot field; the fields are name, role, instructions, model, avatar, colour, permissionPreset, pinned, hidden, main, workFolder',
          'deleted: is not a Bot field; the fields are name, role, instructions, model, avatar, colour, permissionPreset, pinned, hidden, main, workFolder',
        ].join('; '),
      )
    }
  })

  it('reports every bad field, one line per issue', () => {
    const r = BotUpdateInput.safeParse({ name: x(41), role: x(25), model: 'gpt', colour: 'red', permissionPreset: 'root' })
    expect(r.success).toBe(false)
    if (!r.success) {
      expect(formatIssues(r.error)).toBe(
        [
          'name: must be at most 40 characters (it has 41)',
          'role: must be at most 24 characters (it has 25)',
          "model: must be written provider/model (letters, digits and . _ : - on both sides of one '/'), e.g. deepseek/deepseek-chat; leave it out for the DSH default",
          'colour: must be a colour written #rrggbb, e.g. #1971c2',
          'permissionPreset: must be one of read-only, workspace-write, danger-full-access',
        ].join('; '),
      )
    }
  })
})

describe('nameTaken', () => {
  const bots = [
    { id: 'bot-1', name: 'Ada' },
    { id: 'bot-2', name: '小明' },
    { id: 'bot-3', name: 'Straße' },
    { id: 'bot-4', name: 'Gone', deleted: { at: '2026-01-01T00:00:00.000Z', by: 'user' } },
    { id: 'bot-5', name: 'Code Reviewer' },
  ]
  const cases: Array<[string, string, string | undefined, boolean]> = [
    ['same name', 'Ada', undefined, true],
    ['other case', 'ADA', undefined, true],
    ['other case, lower', 'ada', undefined, true],
    ['surrounding spaces', '  ada ', undefined, true],
    ['full-width letters', 'Ａｄａ', undefined, true],
    ['CJK', '小明', undefined, true],
    ['ß vs SS', 'STRASSE', undefined, true],
    ['inner spaces collapse', 'code   reviewer', undefined, true],
    ['a different name', 'Adam', undefined, false],
    ['deleted Bots free their name', 'gone', undefined, false],
    ['renaming a Bot to its own name in another case', 'ADA', 'bot-1', false],
    ['renaming onto another Bot', 'ada', 'bot-2', true],
  ]
  it.each(cases)('%s: %s (except %s) → %s', (_label, name, exceptId, want) => {
    expect(nameTaken(name, bots, exceptId)).toBe(want)
  })

  it("takes the store's id → Bot map as well as a list", () => {
    const map = Object.fromEntries(bots.map((b) => [b.id, b]))
    expect(nameTaken('ADA', map)).toBe(true)
    expect(nameTaken('gone', map)).toBe(false)
    expect(nameTaken('ada', map, 'bot-1')).toBe(false)
    expect(nameTaken('anyone', [])).toBe(false)
  })

  it('has a refusal line in the formatIssues style', () => {
    expect(nameTakenMessage('  ada ')).toBe('name: another Bot is already called "ada" (names are unique, ignoring case)')
  })
})

describe('defaultColour', () => {
  const names = ['Ada', 'Bob', '小明', 'Zed', 'Eve', 'Max', 'Lin', 'Kai', 'Sam', 'Ivy', 'Researcher', 'Main Bot']

  it('is a palette colour, the same for the same name in any case or spacing', () => {
    for (const n of names) {
      expect(COLOUR_PALETTE).toContain(defaultColour(n))
      expect(defaultColour(n.toUpperCase())).toBe(defaultColour(n))
      expect(defaultColour(` ${n} `)).toBe(defaultColour(n))
    }
  })

  it('is fixed across versions (a changed hash would recolour every Bot)', () => {
    expect(names.slice(0, 4).map(defaultColour)).toEqual(['#0c8599', '#1971c2', '#e03131', '#1971c2'])
  })

  it('spreads over the palette', () => {
    const used = new Set(Array.from({ length: 200 }, (_, i) => defaultColour(`Bot ${i}`)))
    expect(used.size).toBe(COLOUR_PALETTE.length)
    expect(COLOUR_PALETTE).toHaveLength(8)
  })
})

describe('helpers', () => {
  it('counts code points', () => {
    expect(charCount('小明')).toBe(2)
    expect(charCount('🤖')).toBe(1)
    expect(charCount('')).toBe(0)
  })

  it('normalises and folds names', () => {
    expect(normaliseName('\u3000 Ada \t Lovelace ')).toBe('Ada Lovelace')
    expect(nameKey('ÀDA')).toBe(nameKey('àda'))
    expect(nameKey('A\u0300da')).toBe(nameKey('Àda'))
  })

  it('formatIssues names nested paths with dots and the whole input as "input"', () => {
    const r = BotCreateInput.safeParse({ name: 'Ada', avatar: { kind: 'shape', shape: 'blob' } })
    expect(r.success).toBe(false)
    if (!r.success) expect(formatIssues(r.error)).toBe('avatar.shape: must be one of circle, square, hexagon, diamond, triangle, star')
    const root = BotCreateInput.safeParse(7)
    expect(root.success).toBe(false)
    if (!root.success) expect(formatIssues(root.error)).toBe("input: must be an object with the Bot's fields")
  })
})

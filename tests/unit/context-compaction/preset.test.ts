import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { expect, it } from 'vitest'
import { botPresetComposition, STOCK_ENGINE } from '../../../src/context/compaction/preset.ts'

// DSH's real shipped `standard` preset from the pinned install (not a copy).
const dshRoot = dirname(createRequire(import.meta.url).resolve('@deepseek-ai/dsh/package.json'))
const standard = readFileSync(join(dshRoot, 'config/agent-presets/standard/agent.cordis.yml'), 'utf8')

it("the Bot team preset is DSH's standard preset with only the compaction row naming the engine module", () => {
  const out = botPresetComposition(standard, '/opt/bot/dist/compaction-engine.mjs')
  expect(out.ok).toBe(true)
  if (!out.ok) return
  expect(out.text).not.toContain(STOCK_ENGINE)
  expect(out.text).toContain('name: "/opt/bot/dist/compaction-engine.mjs"')
  const body = out.text.split('\n').filter((l) => !l.startsWith('# Generated') && !l.startsWith('# changes') && !l.startsWith('# engine ('))
  const before = standard.split('\n')
  const changed = before.filter((line, i) => body[i] !== line)
  expect(changed).toEqual([`      name: '${STOCK_ENGINE}'`])
})

it('refuses when the compaction row is not found exactly once, or the path is relative', () => {
  expect(botPresetComposition(standard.replaceAll(STOCK_ENGINE, '@x/other'), '/e.mjs')).toMatchObject({ ok: false, reason: expect.stringContaining('0 rows') })
  expect(botPresetComposition(`${standard}\n    name: '${STOCK_ENGINE}'\n`, '/e.mjs')).toMatchObject({ ok: false, reason: expect.stringContaining('2 rows') })
  expect(botPresetComposition(standard, 'dist/e.mjs')).toMatchObject({ ok: false })
})

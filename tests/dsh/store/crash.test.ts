// A child saving in a tight loop through the store's save path is SIGKILLed at random moments,
// 200+ times; after each kill state.json must parse, validate and equal one written revision.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isTempLeftover } from '../../../src/store/load.ts'
import { stateSchema } from '../../../src/store/schema.ts'
import { fixture, openStore, tempHome } from './helpers.ts'
import { stateAt } from './fixtures/state-gen.ts'

const KILLS = 200
const LANES = 2

function runOnce(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture('crash-writer.ts'), dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.on('data', d => { err += d })
    child.stdout.once('data', () => {
      // a random moment inside the save loop (each save is a few ms with fsync)
      setTimeout(() => child.kill('SIGKILL'), Math.random() * 30)
    })
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve()
      else reject(new Error(`crash writer exited by itself (${code}): ${err}`))
    })
  })
}

async function lane(dir: string, kills: number, stats: { kills: number, maxTemps: number, revisions: number[] }) {
  let last = 0
  for (let i = 0; i < kills; i++) {
    await runOnce(dir)
    stats.kills++
    const file = path.join(dir, 'state.json')
    const parsed = stateSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')))
    // exactly the content written for that revision — no mix of two saves
    expect(parsed).toEqual(stateAt(parsed.revision))
    expect(parsed.revision).toBeGreaterThanOrEqual(last)
    last = parsed.revision
    stats.maxTemps = Math.max(stats.maxTemps, fs.readdirSync(dir).filter(isTempLeftover).length)
    if (i % 25 === 24) {
      // the real store opening this folder cleans up unfinished saves and keeps the data
      const { store, fiber } = await openStore({ dir, role: 'writer' })
      expect(store.status().mode).toBe('writer')
      expect(store.state.revision).toBe(last)
      expect(fs.readdirSync(dir).filter(isTempLeftover)).toEqual([])
      await fiber.dispose()
    }
  }
  stats.revisions.push(last)
}

describe('crash safety', () => {
  it(`survives ${KILLS} SIGKILLs mid-save: the file is always one whole written revision`, async () => {
    const dirs = Array.from({ length: LANES }, () => tempHome('bot-crash-').bot)
    for (const d of dirs) fs.mkdirSync(d, { recursive: true })
    const stats = { kills: 0, maxTemps: 0, revisions: [] as number[] }
    const per = Math.ceil(KILLS / LANES)
    await Promise.all(dirs.map(d => lane(d, per, stats)))
    expect(stats.kills).toBeGreaterThanOrEqual(KILLS)
    // the loop really was saving when killed
    expect(stats.revisions.every(r => r >= per)).toBe(true)
    for (const dir of dirs) {
      const { store, fiber } = await openStore({ dir, role: 'writer' })
      expect(store.status()).toMatchObject({ mode: 'writer', reason: null })
      expect(fs.readdirSync(dir).filter(isTempLeftover)).toEqual([])
      expect(fs.readdirSync(dir).filter(n => n.includes('broken'))).toEqual([])
      await fiber.dispose()
    }
    console.log(`crash: kills=${stats.kills} max_temp_files_between_loads=${stats.maxTemps} final_revisions=${stats.revisions.join(',')}`)
  }, 180_000)
})

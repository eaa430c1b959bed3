// e2e (who writes team state): a process writes the team because it hosts DSH's web app, whatever
// its profile is called. DSH Desktop serves the web app from its own profile (named `desktop`); a
// user may name such a profile anything. Each test installs the bundle into a profile that loads
// DSH's web-app bundle under that name, boots it with `dsh --profile <name>`, and checks that it
// takes the team lock, creates the Main Bot and answers the Main Bot's chat; with the plugin's
// `writer: never` such a process only follows. (A one-shot headless run only following is
// checked in cli.test.ts.)
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import {
  WEB_APP_BUNDLES,
  answeredLastPrompt,
  listBotsScript,
  api,
  homeWithBundle,
  startWeb,
  teamStatus,
  untilEvents,
  untilTeamReady,
  type WebProcess,
} from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess | undefined

beforeEach(async () => {
  model = await startScriptedServer(listBotsScript())
})
afterEach(async () => {
  await web?.stop()
  web = undefined
  await model.close()
})

describe("the process that hosts DSH's web app writes the team, whatever its profile is called", () => {
  it.each(['desktop', 'studio'])(
    "a profile named %s that loads DSH's web app becomes the writer, creates the Main Bot and answers its chat",
    async (profile) => {
      const home = await homeWithBundle(profile, inject('bundleTarball'), [{ name: profile, bundles: WEB_APP_BUNDLES }])
      web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }, profile)

      const status = await untilTeamReady(web.url)
      expect(status.store).toMatchObject({ mode: 'writer', reason: null })
      expect(status.bots).toMatchObject([{ name: 'Main', main: true }])
      const owner = JSON.parse(readFileSync(join(home.home, 'bot', 'state.lock', 'owner.json'), 'utf8'))
      expect(owner.pid).toBe(web.child.pid)
      const state = JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8'))
      expect(Object.values(state.bots)).toMatchObject([{ name: 'Main', main: true }])

      // The Main Bot's chat is opened and answered in this process (a follower would refuse it).
      let row: any
      for (let i = 0; i < 100 && !row; i++) {
        row = (await api(web.url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === 'Main')
        if (!row) await new Promise((r) => setTimeout(r, 100))
      }
      expect(row, "the Main Bot's chat in the session list").toBeDefined()
      await api(web.url, 'session.prompt', { sessionId: row.sessionId, mode: 'queue', content: [{ type: 'text', text: 'who is on the team?' }] })
      const events = await untilEvents(web.url, row.sessionId, answeredLastPrompt, 'the answer')
      const final = events.filter((e: any) => e.type === 'assistant/message').at(-1)?.data
      expect(final.message.content[0].text).toMatch(/^Tool said: The team has 1 Bot:\n- Main/)
    },
  )

  it('with `writer: never` in its profile, such a process only follows: team changes are refused, no lock, no Main Bot', async () => {
    const home = await homeWithBundle('desktop-never', inject('bundleTarball'), [{ name: 'desktop', bundles: WEB_APP_BUNDLES }])
    writeFileSync(join(home.home, 'profiles', 'desktop', 'cordis.patch.yml'), '- id: bot-team\n  config:\n    writer: never\n')
    web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }, 'desktop')

    // A whole chat turn in DSH Web first: by its end the web app is long up, so a process that
    // ignored the setting would have taken the lock by now.
    const plain = await api(web.url, 'session.create', { cwd: home.cwd })
    await api(web.url, 'session.prompt', { sessionId: plain.sessionId, mode: 'queue', content: [{ type: 'text', text: 'hello' }] })
    await untilEvents(web.url, plain.sessionId, answeredLastPrompt, 'the answer')
    const created = await fetch(`${web.url}/bot-team/api/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    })
    expect(created.status).toBe(409)
    const status = await teamStatus(web.url)
    expect(status.store).toMatchObject({ mode: 'follower', reason: 'role-follower' })
    expect(status.bots).toEqual([])
    expect(existsSync(join(home.home, 'bot', 'state.lock'))).toBe(false)
    expect(existsSync(join(home.home, 'bot', 'state.json'))).toBe(false)
  })
})

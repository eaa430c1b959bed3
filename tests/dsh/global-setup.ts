// dsh global setup: build the team page's script (`dist-client/page.js`, tsdown's `team-page`
// config), which the plugin's `/bot-team` route serves from disk, so the page tests run on it.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { node22, root, toolEnv } from '../../scripts/pack.ts'

export default function setup(): void {
  const r = spawnSync(node22, [join(root, 'node_modules', 'tsdown', 'dist', 'run.mjs'), '--log-level', 'warn', '-F', 'team-page'], {
    cwd: root,
    env: toolEnv(),
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`building the team page failed:\n${r.stdout}\n${r.stderr}`)
}

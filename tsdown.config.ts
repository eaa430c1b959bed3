import { defineConfig } from 'tsdown'

// Two ESM entries: the plugin for the DSH Loader, and the `dsh-bot-team` command
// (bin/dsh-bot-team.mjs → dist/cli.mjs: backup/restore; it never loads SQLite). Dependencies and
// peerDependencies stay external (tsdown's default), so both import DSH's own module instances
// from the profile.
export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/backup/cli.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  outDir: 'dist',
})

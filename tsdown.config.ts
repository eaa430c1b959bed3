import { defineConfig } from 'tsdown'

// ESM entries: the plugin for the DSH Loader; the Bot compaction engine that the Bot team agent
// preset names by absolute path (`dist/compaction-engine.mjs`, see src/context/compaction/service.ts);
// and the `dsh-bot-team` command (bin/dsh-bot-team.mjs → dist/cli.mjs: backup/restore; it never
// loads SQLite). Dependencies and peerDependencies stay external (tsdown's default), so every entry
// imports DSH's own module instances from the profile.
export default defineConfig({
  entry: { index: 'src/index.ts', 'compaction-engine': 'src/context/compaction/engine.ts', cli: 'src/backup/cli.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  outDir: 'dist',
})

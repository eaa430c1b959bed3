import { defineConfig } from 'tsdown'

// ESM entries for the DSH Loader: the plugin, and the Bot compaction engine that the Bot team agent
// preset names by absolute path (`dist/compaction-engine.mjs`, see src/context/compaction/service.ts).
// Dependencies and peerDependencies stay external (tsdown's default), so the plugin imports DSH's
// own module instances from the profile.
export default defineConfig({
  entry: { index: 'src/index.ts', 'compaction-engine': 'src/context/compaction/engine.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  outDir: 'dist',
})

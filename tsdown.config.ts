import { defineConfig } from 'tsdown'

// One ESM entry for the DSH Loader. Dependencies and peerDependencies stay external (tsdown's
// default), so the plugin imports DSH's own module instances from the profile.
export default defineConfig({
  entry: ['src/index.ts'],
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  outDir: 'dist',
})

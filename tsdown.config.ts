import { defineConfig } from 'tsdown'

/** What DSH Web's module table serves to a client bundle: never bundled, always `require`d. */
const SHELL_MODULES = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  '@deepseek-ai/cordis',
  '@deepseek-ai/dsh-client-ui-slots',
  '@deepseek-ai/dsh-client-ui-primitives',
  '@deepseek-ai/dsh-client-runtime/client',
]

export default defineConfig([
  // ESM entries: the plugin for the DSH Loader; the Bot compaction engine that the Bot team agent
  // preset names by absolute path (`dist/compaction-engine.mjs`, see src/context/compaction/service.ts);
  // and the `dsh-bot-team` command (bin/dsh-bot-team.mjs → dist/cli.mjs: backup/restore; it never
  // loads SQLite). Dependencies and peerDependencies stay external (tsdown's default), so every entry
  // imports DSH's own module instances from the profile.
  {
    name: 'plugin',
    entry: { index: 'src/index.ts', 'compaction-engine': 'src/context/compaction/engine.ts', cli: 'src/backup/cli.ts' },
    format: 'esm',
    platform: 'node',
    target: 'node22',
    dts: true,
    clean: true,
    outDir: 'dist',
  },
  // The browser half (src/client): a classic script in DSH Web's module-loader format — CJS wrapped
  // in `window.__ModuleLoader__.load({ id, factory: (require) => … })`; the id must equal the
  // package name or DSH Web fails to load every plugin. Everything but the shell's modules (zod,
  // the source reader) is bundled.
  {
    name: 'client',
    entry: { client: 'src/client/index.ts' },
    format: 'cjs',
    inputOptions: { platform: 'browser' },
    target: 'es2022',
    dts: false,
    // The team page's build writes into the same folder: each build cleans only its own file.
    clean: ['dist-client/client.js'],
    minify: true,
    outDir: 'dist-client',
    deps: { neverBundle: SHELL_MODULES, alwaysBundle: (id: string) => !SHELL_MODULES.includes(id) },
    outExtensions: () => ({ js: '.js' }),
    outputOptions: {
      banner: 'window.__ModuleLoader__.load({ id: "dsh-bot-team", factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;',
      footer: 'return module.exports; } });',
    },
  },
  // The team page at /bot-team, for a browser without DSH Web's shell (src/client/page.ts): the
  // same panels as inside DSH Web, as one classic script with nothing external (no React: the
  // panels are plain DOM). The server serves this file; it writes no script of its own.
  {
    name: 'team-page',
    entry: { page: 'src/client/page.ts' },
    format: 'iife',
    inputOptions: { platform: 'browser' },
    target: 'es2022',
    dts: false,
    clean: ['dist-client/page.js'],
    minify: true,
    outDir: 'dist-client',
    deps: { alwaysBundle: () => true },
    outputOptions: { entryFileNames: '[name].js' },
  },
])

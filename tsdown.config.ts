import { defineConfig } from 'tsdown'

/** What DSH Web's module table serves to a client bundle: never bundled, always `require`d. */
const SHELL_MODULES = [
  'react', 'react/jsx-runtime', 'react-dom', 'react-dom/client', '@deepseek-ai/cordis',
  '@deepseek-ai/dsh-client-ui-slots', '@deepseek-ai/dsh-client-ui-primitives', '@deepseek-ai/dsh-client-runtime/client',
]

export default defineConfig([
  // One ESM entry for the DSH Loader. Dependencies and peerDependencies stay external (tsdown's
  // default), so the plugin imports DSH's own module instances from the profile.
  {
    entry: ['src/index.ts'],
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
    entry: { client: 'src/client/index.ts' },
    format: 'cjs',
    inputOptions: { platform: 'browser' },
    target: 'es2022',
    dts: false,
    clean: true,
    minify: true,
    outDir: 'dist-client',
    deps: { neverBundle: SHELL_MODULES, alwaysBundle: (id: string) => !SHELL_MODULES.includes(id) },
    outExtensions: () => ({ js: '.js' }),
    outputOptions: {
      banner: 'window.__ModuleLoader__.load({ id: "dsh-bot-team", factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;',
      footer: 'return module.exports; } });',
    },
  },
])

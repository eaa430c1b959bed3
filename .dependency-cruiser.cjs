// The house's layer table, checked by `npm run lint` (dependency-cruiser). docs/architecture.md
// draws the graph these rules produce (`npm run graph`).
//
// | layer                                   | may import                                          |
// | --------------------------------------- | --------------------------------------------------- |
// | leaves: src/core, src/dsh, version.ts   | other leaves                                        |
// | src/store                               | leaves                                              |
// | the task ledger's core (src/tasks/…)    | leaves; the store's types only                      |
// | the git layer (src/worktrees)           | leaves                                              |
// | services (roster … operations, tasks, network) | leaves, store, worktrees; other services' types only|
// | src/web, src/backup, index.ts, config.ts| everything above, values too                        |
// | src/client                              | client code, the named leaves, the web's view types |
const LEAVES = '^src/(core|dsh)/|^src/version[.]ts$'
const SERVICES = 'roster|delivery|rooms|context|archive|memory|secrets|usage|operations|tasks|network'
// The ledger's core inside src/tasks: leaf-like (the service and its tools sit beside it).
const LEDGER_CORE = '^src/tasks/(record|board|policy|journal|formats|store)[.]ts$'
// The git layer for project tasks: a library the task service will call, below every service.
const WORKTREES = '^src/worktrees/'
const TOP = '^src/(web|backup)/|^src/(index|config)[.]ts$'
const CLIENT_LEAVES = '^src/core/(sources|log-lines|errors)[.]ts$'

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'No cycle between files, except through type-only imports.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'leaves-import-leaves',
      comment: 'core/ and dsh/ are the ground floor: they import only each other (and packages).',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: '^src/', pathNot: LEAVES },
    },
    {
      name: 'store-imports-leaves',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: `${LEAVES}|^src/store/` },
    },
    {
      name: 'tasks-import-leaves',
      comment: "The task ledger's core is leaf-like: leaves and its own core files, the store for types only, never a service.",
      severity: 'error',
      from: { path: LEDGER_CORE },
      to: { path: '^src/', pathNot: `${LEAVES}|${LEDGER_CORE}|^src/store/` },
    },
    {
      name: 'worktrees-import-leaves',
      comment: 'The git layer is leaf-like: leaves and its own files, never the store or a service.',
      severity: 'error',
      from: { path: WORKTREES },
      to: { path: '^src/', pathNot: `${LEAVES}|${WORKTREES}` },
    },
    {
      name: 'tasks-take-only-types-from-the-store',
      severity: 'error',
      from: { path: LEDGER_CORE },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-know-types-of-services',
      comment: "A service knows another service's types, never its values.",
      severity: 'error',
      from: { path: `^src/(${SERVICES})/` },
      to: { path: `^src/(${SERVICES})/`, pathNot: '^src/$1/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-stay-below-the-top',
      severity: 'error',
      from: { path: `^src/(${SERVICES}|store|tasks|worktrees|core|dsh)/` },
      to: { path: `${TOP}|^src/client/` },
    },
    {
      name: 'client-imports-client-and-named-leaves',
      comment: 'The browser half bundles what it imports: client code, named pure leaves, and type-only views.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: `^src/client/|${CLIENT_LEAVES}|^src/web/(team-view|task-cards|project-view)[.]ts$` },
    },
    {
      name: 'client-takes-only-types-from-the-web',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/web/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-browser-half-imports-no-node-module',
      comment: 'What the browser bundle takes (the client, its named leaves and what they import) uses no Node built-in module: the bundle would not load.',
      severity: 'error',
      from: { path: '^src/client/|^src/core/(sources|log-lines|errors|network)[.]ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'nothing-server-side-imports-the-client',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/client/' },
      to: { path: '^src/client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
}

/**
 * Store — the public surface of team state for the services above it: the `botStore` service, its
 * state schema and types, store errors, and `own` (safe lookups in state records). The store's own
 * modules (load, migrations, lock, save) are imported by their tests directly.
 * Dependents declare `inject: ['botStore']`.
 */
export { BotStore } from './service.ts'
export type { Diagnostic } from './service.ts'
export * from './schema.ts'
export { isStoreError } from '../core/store-errors.ts'
export { serializeState } from './save.ts'
export { own } from './own.ts'

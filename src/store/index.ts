/**
 * Store — public surface of team state: the `botStore` service plugin, its config schema, the
 * state schema and types, errors and the pure load/migration functions.
 *
 * Mount with `ctx.plugin(BotStorePlugin, { dir: path.join(DSH_HOME, 'bot'), longLived, pluginVersion })`;
 * dependents declare `inject: ['botStore']`.
 */
export { BotStore, BotStore as BotStorePlugin, Config, botStoreWith } from './service.ts'
export type { ConfigInput, Diagnostic, StateChange, StateListener, StoreDeps, StoreMode, StoreStatus, Transaction, FollowerReason, WriterEvent } from './service.ts'
export * from './schema.ts'
export { StoreError, isStoreError, type StoreErrorCode } from '../core/store-errors.ts'
export { classifyRead, brokenCopyName, isTempLeftover, STATE_FILE, LOCK_DIR, type Classified, type ReadResult, type ReadOnlyReason } from './load.ts'
export { migrate, MIGRATIONS, exampleMigrationV1toV2, migrationV1toV2, type Migration, type MigrateResult } from './migrations.ts'
export { acquireStateLock, isPidAlive, readLockOwner, type LockFn, type LockOwner } from './lock.ts'
export { serializeState, writeStateFile } from './save.ts'
export { own } from './own.ts'

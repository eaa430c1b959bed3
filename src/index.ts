/**
 * Bot Team for DeepSeek Harness — the plugin entry.
 *
 * A Cordis plugin (named exports only: `name`, `inject`, `Config`, `apply`; a default export
 * would make DSH's Loader drop `inject`) that mounts one service plugin per concern and registers
 * only reversible effects. Every Bot is an ordinary DSH root Session; DSH's agent loop does all
 * model and tool work.
 *
 * `apply` must never throw for a reason the user can repair at run time (a broken native build,
 * an unreadable state file): a throw here kills the whole DSH boot. Such problems degrade the
 * part that needs them and are reported once, clearly.
 */
import { dirname } from 'node:path'
import type { Context, Fiber } from '@deepseek-ai/cordis'
import { dshHomePath } from '@deepseek-ai/dsh-home-paths'
import { BotArchive } from './archive/service.ts'
import { BotCompaction } from './context/compaction/service.ts'
import { Config, resolvePaths } from './config.ts'
import { BotContext } from './context/service.ts'
import { BotDelivery } from './delivery/service.ts'
import { BotMemory } from './memory/service.ts'
import { BotDiagnostics } from './operations/diagnostics.ts'
import { BotPause } from './operations/pause.ts'
import { configLimits } from './core/limits.ts'
import { BotLimits } from './operations/limits-service.ts'
import { BotSchedules } from './operations/schedules/service.ts'
import { WEB_APP_SERVICES, hostsWebApp, promotesWhenWebAppAppears, storeRole } from './dsh/host-kind.ts'
import { warn } from './dsh/warn.ts'
import { BotRooms } from './rooms/service.ts'
import { BotRoster } from './roster/service.ts'
import { BotSecrets } from './secrets/service.ts'
import { summary } from './roster/tools.ts'
import { BotStore } from './store/index.ts'
import { BotUsage } from './usage/service.ts'
import { PAIRING_FILE } from './web/pairing-file.ts'
import { registerWebRoutes } from './web/routes.ts'
import { mountTeamFeed } from './web/team-api-routes.ts'
import { PLUGIN_NAME, PLUGIN_VERSION } from './version.ts'

export { Config }

/** A throw from `apply()` kills the whole DSH boot: contain a service's start-up failure to that service. */
async function mountContained(fiber: Fiber & PromiseLike<unknown>, what: string): Promise<void> {
  try {
    await fiber
  } catch (error) {
    warn(fiber.parent, `the ${what} service failed to start; the rest of the plugin keeps working`, error, 'start-failed')
  }
}

export const name = PLUGIN_NAME
export const inject = ['agents', 'sessions', 'tools', 'systemPrompt']

export async function apply(ctx: Context, config: Config): Promise<void> {
  const paths = resolvePaths(config, dshHomePath)
  // Awaited so the team is open (writer, follower or read-only) before DSH creates any agent.
  // The services degrade instead of throwing; a failure here is a bug, reported and contained.
  // Who writes: a process hosting DSH's web app (DSH Web, Desktop) under `writer: auto`.
  await mountContained(ctx.plugin(BotStore, {
    dir: paths.dir,
    role: storeRole(config.writer),
    longLived: hostsWebApp((service) => ctx.get(service) !== undefined),
    requireLock: config.requireLock,
    pluginVersion: PLUGIN_VERSION,
  }), 'team state')
  // The web app's services may activate after this plugin: promote then (the store emits its
  // writer event, on which the roster sets up the team). Registered after the store is up, so
  // the store is there when the callback runs; a no-op if it already writes.
  if (promotesWhenWebAppAppears(config.writer)) {
    ctx.inject([...WEB_APP_SERVICES], (ctx) => {
      void ctx.get('botStore')?.allowWriting()
    })
  }
  await mountContained(ctx.plugin(BotArchive, { dir: paths.dir, prefer: config.sqlite }), 'archive')
  // Diagnostics first after the store, so every later service can note what happens.
  await mountContained(ctx.plugin(BotDiagnostics, { dir: paths.dir, maxBytes: config.operations.diagnosticsMaxBytes }), 'diagnostics')
  // The pause switch: before delivery, rooms and schedules, which ask it before starting Bot work.
  if (ctx.get('botStore')) await mountContained(ctx.plugin(BotPause), 'pause')
  // The one source of the limits in force: the config's values, the person's overrides (Team
  // settings) over them. Every service that enforces a limit asks it at each check.
  if (ctx.get('botStore')) await mountContained(ctx.plugin(BotLimits, configLimits(config)), 'team settings')

  // Bots need team state, and messages and rooms need Bots; without them (a start-up bug,
  // reported above) the rest keeps working.
  const sessions = { workspace: paths.workspace, ...(config.defaultModel ? { defaultModel: config.defaultModel } : {}) }
  // A Bot's own working folder may not be, hold or lie inside the DSH home or the team folder.
  const protectedFolders = [dshHomePath(), paths.dir]
  // Before the roster: it names the Bot team agent preset for the Sessions the roster opens.
  await mountContained(ctx.plugin(BotCompaction, {}), 'compaction')
  if (ctx.get('botStore')) await mountContained(ctx.plugin(BotRoster, { ...sessions, protectedFolders }), 'roster')
  if (ctx.get('botRoster') && config.usage.enabled) await mountContained(ctx.plugin(BotUsage, { dir: paths.dir, prefer: config.sqlite, flushMs: config.usage.flushMs }), 'usage ledger')
  if (ctx.get('botRoster')) {
    await mountContained(ctx.plugin(BotDelivery), 'delivery')
    await mountContained(ctx.plugin(BotRooms), 'rooms')
    await mountContained(ctx.plugin(BotSchedules, { maxSchedules: config.operations.maxSchedules }), 'schedules')
    await mountContained(ctx.plugin(BotContext, { dir: paths.dir, ...config.context }), 'context steward')
    await mountContained(ctx.plugin(BotMemory, { dir: paths.dir, limits: config.memory.limits, review: config.memory.review, ...(config.defaultModel ? { defaultModel: config.defaultModel } : {}) }), 'memory')
    await mountContained(ctx.plugin(BotSecrets, { dir: paths.dir }), 'secrets')
  }

  ctx.inject(['webServer'], (ctx) => registerWebRoutes(ctx, {
    trustedHosts: config.trustedHosts,
    pairingFile: `${paths.dir}/${PAIRING_FILE}`,
    roster: () => ctx.get('botRoster') ?? undefined,
    rooms: () => ctx.get('botRooms') ?? undefined,
    parts: () => ctx.get('botContext') ?? undefined,
    memory: () => ctx.get('botMemory') ?? undefined,
    // The team folder's parent is DSH_HOME (the default `dir`); the backup reads sessions through DSH.
    backup: { home: dirname(paths.dir), teamFolder: paths.workspace, sessions: () => ctx.get('sessionPersistence') },
    usage: () => ctx.get('botUsage') ?? undefined,
    groupId: (ref) => ctx.get('botRooms')?.group(ref)?.id,
    operations: () => ({ limits: ctx.get('botLimits') ?? undefined, pause: ctx.get('botPause') ?? undefined, schedules: ctx.get('botSchedules') ?? undefined, diagnostics: ctx.get('botDiagnostics') ?? undefined }),
    secrets: () => ctx.get('botSecrets') ?? undefined,
    feed: mountTeamFeed(ctx),
    status: () => ({
      plugin: PLUGIN_NAME,
      version: PLUGIN_VERSION,
      bots: ctx.get('botRoster')?.bots().map(summary) ?? [],
      store: ctx.get('botStore')?.status() ?? null,
      activity: ctx.get('botRoster')?.activity() ?? [],
      archive: ctx.get('botArchive')?.status ?? { driver: 'unavailable' },
    }),
  }))
}

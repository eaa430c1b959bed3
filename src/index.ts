/**
 * Bot Team for DeepSeek Harness — the plugin entry: named exports only (`name`, `inject`, `Config`,
 * `apply`; a default export would make DSH's Loader drop `inject`), mounting one service per concern
 * and then the routes. `apply` never throws for a reason the person can repair (a throw kills DSH's
 * boot): a failing service is reported and the rest keep working.
 */
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Context, Fiber } from '@deepseek-ai/cordis'
import { dshHomePath } from '@deepseek-ai/dsh-home-paths'
import { BotArchive } from './archive/service.ts'
import { BotCompaction } from './context/compaction/service.ts'
import { Config, projectForbiddenFolders, resolvePaths } from './config.ts'
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
import { BotTasks } from './tasks/service.ts'
import { BotNetwork } from './network/service.ts'
import { holdBoot } from './dsh/boot.ts'
import { PAIRING_FILE } from './web/pairing-file.ts'
import { registerWebRoutes } from './web/routes.ts'
import { mountTeamFeed } from './web/team-api-routes.ts'
import { quietPort } from './web/quiet.ts'
import { PLUGIN_NAME, PLUGIN_VERSION } from './version.ts'

export { Config }

/** A service plugin as mounted, and what a report calls it. */
interface Mounted {
  fiber: Fiber & PromiseLike<Fiber>
  what: string
}

/**
 * Wait until Cordis has started every service it can — each starts once its `inject` is up, and
 * a start may let others start — then report each that failed, and those left waiting for a
 * service that is not up (a failed one's dependents). A throw from `apply()` kills the whole DSH
 * boot: a start-up failure is contained to its service and what needs it.
 */
async function startContained(ctx: Context, services: readonly Mounted[]): Promise<void> {
  for (let starting = services.filter((s) => s.fiber.inertia); starting.length; starting = services.filter((s) => s.fiber.inertia)) {
    await Promise.all(starting.map((s) => s.fiber.inertia))
  }
  const waiting = new Map<string, string[]>()
  for (const { fiber, what } of services) {
    try {
      await fiber
    } catch (error) {
      warn(ctx, `the ${what} service failed to start; the rest of the plugin keeps working`, error, 'start-failed')
      continue
    }
    if (fiber.store !== undefined) continue // started
    const missing = Object.keys(fiber.inject)
      .filter((name) => ctx.get(name) === undefined)
      .join(', ')
    waiting.set(missing, [...(waiting.get(missing) ?? []), what])
  }
  for (const [missing, whats] of waiting) warn(ctx, `not started, for want of ${missing || 'a service'}: ${whats.join(', ')}`, undefined, 'start-waiting')
}

export const name = PLUGIN_NAME
export const inject = ['agents', 'sessions', 'tools', 'systemPrompt']

export async function apply(ctx: Context, config: Config): Promise<void> {
  const paths = resolvePaths(config, dshHomePath)
  // In-process (no loader), the services' after-boot work (the first Main Bot, recoveries) waits
  // until all of them are up, as under DSH's loader; released below.
  const release = holdBoot(ctx)
  // Every service is mounted at once; Cordis starts each when what its `inject` names is up, so
  // the order below only breaks ties (it is the order of the registry, and so deterministic).
  // Without the store (a start-up bug, reported) what needs it waits and the rest keeps working.
  const services: Mounted[] = []
  const mount = (fiber: Fiber & PromiseLike<Fiber>, what: string) => services.push({ fiber, what })
  // Who writes: a process hosting DSH's web app (DSH Web, Desktop) under `writer: auto`.
  mount(
    ctx.plugin(BotStore, {
      dir: paths.dir,
      role: storeRole(config.writer),
      longLived: hostsWebApp((service) => ctx.get(service) !== undefined),
      requireLock: config.requireLock,
      pluginVersion: PLUGIN_VERSION,
    }),
    'team state',
  )
  // The web app's services may activate after this plugin: promote then (the store emits its
  // writer event, on which the roster sets up the team); a no-op if it already writes.
  if (promotesWhenWebAppAppears(config.writer)) {
    ctx.inject(['botStore', ...WEB_APP_SERVICES], (ctx) => {
      void ctx.botStore.allowWriting()
    })
  }
  mount(ctx.plugin(BotArchive, { dir: paths.dir, prefer: config.sqlite }), 'archive')
  // Needs nothing, so it is up before every service that notes what happens.
  mount(ctx.plugin(BotDiagnostics, { dir: paths.dir, maxBytes: config.operations.diagnosticsMaxBytes }), 'diagnostics')
  // The pause switch: delivery, rooms and schedules inject it, as they ask it before starting Bot work.
  mount(ctx.plugin(BotPause), 'pause')
  // The one source of the limits in force: the config's values, the person's overrides (Team
  // settings) over them. Every service that enforces a limit injects it and asks it at each check.
  mount(ctx.plugin(BotLimits, configLimits(config)), 'team settings')
  const sessions = { workspace: paths.workspace, ...(config.defaultModel ? { defaultModel: config.defaultModel } : {}) }
  // A Bot's own working folder may not be, hold or lie inside the DSH home or the team folder, nor
  // lie inside or over the plugin's worktrees folder or the team's project (the task service names it).
  const protectedFolders = [dshHomePath(), paths.dir]
  const worktrees = config.worktrees ?? join(homedir(), '.local', 'share', 'dsh-bot-team', 'worktrees')
  // Needs only `agents`: up before the roster opens a Session, whose agent preset it names.
  mount(ctx.plugin(BotCompaction, {}), 'compaction')
  // Bots' namespace sets and the start-up probe: the roster's shell guard and the task checks run commands through it.
  mount(ctx.plugin(BotNetwork, config.network), 'network')
  mount(ctx.plugin(BotRoster, { dir: paths.dir, ...sessions, protectedFolders, worktrees }), 'roster')
  if (config.usage.enabled) mount(ctx.plugin(BotUsage, { dir: paths.dir, prefer: config.sqlite, flushMs: config.usage.flushMs }), 'usage ledger')
  mount(ctx.plugin(BotDelivery), 'delivery')
  mount(ctx.plugin(BotRooms), 'rooms')
  mount(ctx.plugin(BotSchedules, { maxSchedules: config.operations.maxSchedules }), 'schedules')
  const projectForbidden = projectForbiddenFolders(dshHomePath(), paths)
  mount(ctx.plugin(BotTasks, { dir: paths.dir, protectedFolders: projectForbidden, worktrees }), 'task ledger')
  mount(ctx.plugin(BotContext, { dir: paths.dir, ...config.context }), 'context steward')
  mount(
    ctx.plugin(BotMemory, {
      dir: paths.dir,
      limits: config.memory.limits,
      review: config.memory.review,
      ...(config.memory.journalMaxBytes ? { journalMaxBytes: config.memory.journalMaxBytes } : {}),
      ...(config.defaultModel ? { defaultModel: config.defaultModel } : {}),
    }),
    'memory',
  )
  mount(ctx.plugin(BotSecrets, { dir: paths.dir }), 'secrets')
  // Awaited so the team is open (writer, follower or read-only) before DSH creates any agent.
  await startContained(ctx, services)
  await release()

  ctx.inject(['webServer'], (ctx) =>
    registerWebRoutes(ctx, {
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
      operations: () => ({
        limits: ctx.get('botLimits') ?? undefined,
        pause: ctx.get('botPause') ?? undefined,
        schedules: ctx.get('botSchedules') ?? undefined,
        diagnostics: ctx.get('botDiagnostics') ?? undefined,
      }),
      secrets: () => ctx.get('botSecrets') ?? undefined,
      quiet: quietPort(ctx),
      tasks: () => ctx.get('botTasks') ?? undefined,
      feed: mountTeamFeed(ctx),
      status: () => ({
        plugin: PLUGIN_NAME,
        version: PLUGIN_VERSION,
        bots: ctx.get('botRoster')?.bots().map(summary) ?? [],
        store: ctx.get('botStore')?.status() ?? null,
        activity: ctx.get('botRoster')?.activity() ?? [],
        archive: ctx.get('botArchive')?.status ?? { driver: 'unavailable' },
      }),
    }),
  )
}

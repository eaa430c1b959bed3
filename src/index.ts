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
import type { Context } from '@deepseek-ai/cordis'
import { dshHomePath } from '@deepseek-ai/dsh-home-paths'
import { BotArchive } from './archive/service.ts'
import { Config, resolvePaths } from './config.ts'
import { listBotsTool, TEAM_RULES_SECTION, TEAM_RULES_TEXT } from './roster/team-tools.ts'
import { registerWebRoutes } from './web/routes.ts'
import { PLUGIN_NAME, PLUGIN_VERSION } from './version.ts'

export { Config }

export const name = PLUGIN_NAME
export const inject = ['tools', 'systemPrompt']

export function apply(ctx: Context, config: Config): void {
  const paths = resolvePaths(config, dshHomePath)
  ctx.plugin(BotArchive, { dir: paths.dir, prefer: config.sqlite })

  ctx.tools.register(listBotsTool(() => []))
  ctx.systemPrompt.section({ name: TEAM_RULES_SECTION, order: 20, text: TEAM_RULES_TEXT })

  ctx.inject(['webServer'], (ctx) => registerWebRoutes(ctx, {
    trustedHosts: config.trustedHosts,
    status: () => ({
      plugin: PLUGIN_NAME,
      version: PLUGIN_VERSION,
      bots: [],
      archive: ctx.get('botArchive')?.status ?? { driver: 'unavailable' },
    }),
  }))
}

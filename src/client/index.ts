/**
 * The browser half: the Cordis plugin DSH Web's shell loads from `/plugins/dsh-bot-team/client.js`.
 * One broken client plugin blanks all of DSH Web, so it injects only `slots`, its `apply` cannot
 * throw (each registration is tried on its own) and every component sits behind an error boundary.
 * The slots it fills are listed in src/client/README.md.
 */
import { makeApp, type AppServices } from './app.ts'
import { guarded } from './shared.ts'
import type { SlotsLike } from './slots.ts'
import { injectStyles } from './styles.ts'

export const name = 'dsh-bot-team'
export const inject = ['slots']

interface ClientContext {
  slots: SlotsLike
  get(name: string): unknown
  effect?(fn: () => () => void): void
}

function warn(what: string, error: unknown): void {
  try {
    console.warn(`dsh-bot-team: ${what}`, error)
  } catch {
    // no console
  }
}

export function apply(ctx: ClientContext): void {
  try {
    injectStyles()
  } catch (error) {
    warn('styles not added', error)
  }
  let app: ReturnType<typeof makeApp>
  try {
    const services: AppServices = {
      slots: ctx.slots,
      get: (n) => {
        try {
          return ctx.get(n)
        } catch {
          return undefined
        }
      },
    }
    app = makeApp(services)
  } catch (error) {
    warn('the team UI did not start', error)
    return
  }
  const mount = (slot: string, options: Record<string, unknown>, what: string, component: Parameters<typeof guarded>[1], quiet = false) => {
    try {
      ctx.slots.inject(slot, () => ctx.slots.register({ name: slot, ...options }, guarded(what, component, quiet)))
    } catch (error) {
      warn(`${slot} not mounted`, error)
    }
  }
  // The team sidebar shadows DSH's session browser only while the person wants the team: switching
  // unregisters it, and DSH's own entry (with its store and injections) renders again.
  const teamSidebar = guarded('the team sidebar', app.TeamSidebar)
  let sidebarOff: (() => void) | undefined
  const followSidebar = () => {
    try {
      const want = app.sidebar.get() === 'team'
      if (want && !sidebarOff)
        sidebarOff = ctx.slots.inject('sidebar.workspaces', () => ctx.slots.register({ name: 'sidebar.workspaces', priority: -1 }, teamSidebar))
      if (!want && sidebarOff) {
        sidebarOff()
        sidebarOff = undefined
      }
    } catch (error) {
      warn('sidebar.workspaces not switched', error)
    }
  }
  followSidebar()
  app.sidebar.subscribe(followSidebar)
  mount('sidebar.footer.action', { id: 'bot-team.switch', order: -10 }, 'the team switch', app.SidebarSwitch, true)
  mount('shell.overlay', { id: 'bot-team.dialog' }, 'the Bot dialog', app.BotDialog)
  mount('shell.overlay', { id: 'bot-team.group' }, 'the Group dialog', app.GroupDialog)
  mount('shell.overlay', { id: 'bot-team.log' }, 'the delivery log', app.LogDialog)
  mount('shell.overlay', { id: 'bot-team.memory' }, 'the memory panel', app.MemoryDialog)
  mount('shell.overlay', { id: 'bot-team.secrets' }, 'the secret cards', app.SecretCards)
  mount('shell.overlay', { id: 'bot-team.pairing' }, 'this browser', app.PairingDialog)
  mount('shell.overlay', { id: 'bot-team.saved-secrets' }, 'the saved secrets', app.SecretsDialog)
  mount('shell.overlay', { id: 'bot-team.usage' }, 'the usage screen', app.UsageDialog)
  mount('shell.overlay', { id: 'bot-team.settings' }, 'team settings', app.SettingsDialog)
  mount('shell.overlay', { id: 'bot-team.part' }, 'an earlier part', app.PartDialog)
  mount('shell.overlay', { id: 'bot-team.board' }, 'the task board', app.TaskBoard)
  mount('conversation.session.header.actions', { id: 'bot-team.badge' }, 'the Bot badge', app.SessionBadge, true)
  mount('conversation.chat.node', { key: 'user', priority: -1, locale: 'conversation' }, 'a team message', app.UserNode)
  mount('conversation.chat.node', { key: 'context', priority: -1, locale: 'conversation' }, 'a team message', app.ContextNode)
  mount('conversation.chat.node', { key: 'assistant-step', priority: -1, locale: 'conversation' }, 'a room answer', app.AssistantNode)
  try {
    ctx.effect?.(() => () => app.store.close())
  } catch (error) {
    warn('stream cleanup not registered', error)
  }
}

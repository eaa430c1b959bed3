/**
 * Which DSH process may become the writer of team state (pure policy).
 *
 * A process that hosts DSH's web app — DSH Web, and DSH Desktop, which serves the same web app
 * from its own profile — is long-lived and may take the team lock and write. A one-shot run
 * (`dsh --profile headless "…"`) opens the team as a follower, so a short run never becomes the
 * writer, starts replaying deliveries and exits mid-turn. "Hosts the web app" is read from the
 * services the process provides (DSH's API gateway and web server), never from the profile's
 * name or the command line: Desktop's profile is not called `web`, and a user may name a profile
 * anything. The plugin's `writer` setting overrides the decision.
 *
 * Deliberately not here: watching for the services. They may appear after this plugin activates;
 * the entry (src/index.ts) mounts the store with what is true at activation and, when the services
 * appear later, asks the store to allow writing (`botStore.allowWriting()`).
 */
export type WriterSetting = 'auto' | 'always' | 'never'

/**
 * The services a process hosting DSH's web app provides: the API gateway (dsh-host-apiproxy) and
 * the web server (dsh-host-webserver). Both are required: `dsh --profile web --help` mounts the
 * gateway but never the server (it has no parsed web flags), and exits at once.
 */
export const WEB_APP_SERVICES = ['apiProxy', 'webServer'] as const

/** True when every web-app service is present; `has(name)` asks the Cordis context. */
export function hostsWebApp(has: (service: string) => boolean): boolean {
  return WEB_APP_SERVICES.every((service) => has(service))
}

/** The store role for a setting: `always` → writer, `never` → follower, `auto` → by host kind. */
export function storeRole(setting: WriterSetting): 'auto' | 'writer' | 'follower' {
  return setting === 'always' ? 'writer' : setting === 'never' ? 'follower' : 'auto'
}

/**
 * Whether the web app appearing after activation should let this process write: only under
 * `auto` (with `always` it writes already; with `never` it must not).
 */
export function promotesWhenWebAppAppears(setting: WriterSetting): boolean {
  return setting === 'auto'
}

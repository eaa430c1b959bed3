/**
 * Which DSH process may write team state (pure): one that hosts DSH's web app — read from its
 * services (API gateway and web server: DSH Web, DSH Desktop), never from the profile name — may;
 * a one-shot run follows; the `writer` setting overrides. Deliberately does not watch the services.
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

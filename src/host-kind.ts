/**
 * Which DSH process may become the writer of team state (pure policy).
 *
 * A long-lived host (DSH Web, and Desktop, which loads the same web profile) may take the team
 * lock and write; a one-shot run (`dsh --profile headless "…"`) opens the team as a follower, so
 * a short run never becomes the writer, starts replaying deliveries and exits mid-turn. The
 * decision is read off the DSH command line, because at activation no service tells a one-shot
 * run from a server reliably (the web server row may activate after this plugin). The plugin's
 * `writer` setting overrides it.
 */
export type WriterSetting = 'auto' | 'always' | 'never'

/** True when the DSH command line starts a long-lived host: `dsh web …` or `--profile web`. */
export function isLongLivedHost(argv: readonly string[]): boolean {
  const args = argv.slice(2)
  if (args[0] === 'web') return true
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '--profile' && args[i + 1] === 'web') return true
    if (a === '--profile=web') return true
  }
  return false
}

/** The store role for a setting: `always` → writer, `never` → follower, `auto` → by host kind. */
export function storeRole(setting: WriterSetting): 'auto' | 'writer' | 'follower' {
  return setting === 'always' ? 'writer' : setting === 'never' ? 'follower' : 'auto'
}

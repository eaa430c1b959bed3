/**
 * Plugin configuration: the one zod schema the Loader validates (zod 4 implements Standard Schema,
 * which Cordis checks before `apply` runs), plus the pure resolution of defaults that depend on
 * the environment (`$DSH_HOME/bot`).
 *
 * Deliberately narrow: no I/O here. Services receive the resolved values, never the raw row.
 */
import { isAbsolute } from 'node:path'
import { z } from 'zod'
import { MemoryLimits } from './memory/caps.ts'
import { ReviewConfig } from './memory/review.ts'
import { JOURNAL_MAX_BYTES } from './memory/service.ts'
import { RoomsSection } from './rooms/config.ts'
import { ContextSection } from './context/config.ts'
import { TEAM_LIMIT_FIELDS } from './core/limits.ts'

export const Config = z
  .object({
    /** Folder holding team state, archive, memory and secrets. Default: `$DSH_HOME/bot`. */
    dir: z.string().refine(isAbsolute, 'bot.dir must be an absolute path').optional(),
    /** Working folder for Bot Sessions. Default: `<dir>/workspace`. */
    workspace: z.string().refine(isAbsolute, 'bot.workspace must be an absolute path').optional(),
    /** Folder for the project's integration clone and task clones (never under `/tmp`). Default: `~/.local/share/dsh-bot-team/worktrees`. */
    worktrees: z.string().refine(isAbsolute, 'bot.worktrees must be an absolute path').optional(),
    /**
     * Extra Host authorities (besides loopback) the plugin's HTTP routes accept, e.g. `myhost:3080`.
     * Mirrors DSH Web's own `--trusted-host`.
     */
    trustedHosts: z.array(z.string().min(1)).default([]),
    /**
     * Who may write team state: `auto` = a process hosting DSH's web app (DSH Web, DSH Desktop,
     * any profile with the web-app bundle) becomes the writer and a one-shot run follows;
     * `always` / `never` force it.
     */
    writer: z.enum(['auto', 'always', 'never']).default('auto'),
    /** Refuse to write (read-only) instead of saving without a lock where the filesystem cannot lock. */
    requireLock: z.boolean().default(false),
    /**
     * `provider/model` for Bots without their own model, where DSH has no default model service
     * (in-process hosts). DSH Web and headless use DSH's own default.
     */
    defaultModel: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, 'defaultModel must look like provider/model')
      .optional(),
    /** Which SQLite driver the archive uses: `auto` tries better-sqlite3, then `node:sqlite`. */
    sqlite: z.enum(['auto', 'better-sqlite3', 'node:sqlite']).default('auto'),
    /** Group rooms: `limits` bound every round (turns, calls per member, timeouts, windows). */
    rooms: RoomsSection.strict().prefault({}),
    /**
     * Limits on Bot-started work: the hop limit and sends per turn of `message_bot`
     * chains, the work budget per message of the person, the team's size and creations per turn.
     * The person may override each in DSH Web's Team settings (team state `limits`; the override wins).
     */
    team: z
      .object({
        hopLimit: TEAM_LIMIT_FIELDS.hopLimit.default(6),
        sendsPerTurn: TEAM_LIMIT_FIELDS.sendsPerTurn.default(5),
        workBudget: TEAM_LIMIT_FIELDS.workBudget.default(40),
        maxBots: TEAM_LIMIT_FIELDS.maxBots.default(50),
        maxGroups: TEAM_LIMIT_FIELDS.maxGroups.default(30),
        createsPerTurn: TEAM_LIMIT_FIELDS.createsPerTurn.default(3),
        /** Bot-started turns (messages, replies) that may run at once; more wait in order. */
        botTurnsAtOnce: TEAM_LIMIT_FIELDS.botTurnsAtOnce.default(4),
        /** Finished delivery records kept in team state (the delivery log); pending ones are always kept. */
        keepFinished: TEAM_LIMIT_FIELDS.keepFinished.default(500),
        /** A task attempt's lease (ms): it runs out when the attempt's turn takes no step for this long. */
        taskLeaseMs: TEAM_LIMIT_FIELDS.taskLeaseMs.default(30 * 60_000),
      })
      .strict()
      .prefault({}),
    /** Long-term memory: caps (entry, MEMORY.md, topic, topic count, a scope's total) and the end-of-turn review. */
    memory: z
      .object({ limits: MemoryLimits.strict().prefault({}), review: ReviewConfig.strict().prefault({}), journalMaxBytes: JOURNAL_MAX_BYTES })
      .strict()
      .prefault({}),
    /**
     * The usage ledger (`bot/usage.sqlite`): `enabled: false` records nothing and enforces
     * no caps; `flushMs` bounds how long rows wait in memory. Prices and caps are set by the person
     * (team state, HTTP), not here.
     */
    usage: z
      .object({ enabled: z.boolean().default(true), flushMs: z.int().min(10).max(60_000).default(1_000) })
      .strict()
      .prefault({}),
    /** Operations: scheduled tasks in the team, and the size at which bot/diagnostics.jsonl rotates. */
    operations: z
      .object({
        maxSchedules: z.int().min(1).max(500).default(100),
        diagnosticsMaxBytes: z
          .int()
          .min(4 * 1024)
          .max(64 * 1024 * 1024)
          .default(1024 * 1024),
      })
      .strict()
      .prefault({}),
    /** The context steward: check line, steward/note model, deadlines. */
    context: ContextSection.strict().prefault({}),
    /**
     * Bots' networks: where the start-up probe looks for unshare, nsenter, slirp4netns, nft, ip,
     * mount, bash and sh (absolute folders; default the system's), and how often the machine's
     * addresses and sockets are read again for live namespaces (seconds; 0 never).
     */
    network: z
      .object({
        programDirs: z.array(z.string().startsWith('/').max(1000)).max(20).optional(),
        refreshSeconds: z.int().min(0).max(3600).default(5),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({}) // a row without `config:` gets every default

export type Config = z.infer<typeof Config>

export interface ResolvedPaths {
  dir: string
  workspace: string
}

/** Resolve the folders from config and the DSH home (pure; the caller supplies `dshHomePath`). */
export function resolvePaths(config: Config, dshHomePath: (...segments: string[]) => string): ResolvedPaths {
  const dir = config.dir ?? dshHomePath('bot')
  return { dir, workspace: config.workspace ?? `${dir}/workspace` }
}

/** The folders a team's project may not lie in or hold: the DSH home, the team folder, the workspace (pure). */
export function projectForbiddenFolders(dshHome: string, paths: ResolvedPaths): { label: string; path: string }[] {
  return [
    { label: 'the DSH home', path: dshHome },
    { label: 'the team folder', path: paths.dir },
    { label: 'the team workspace', path: paths.workspace },
  ]
}

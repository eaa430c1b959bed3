/**
 * `dsh-bot-team backup [--out FILE] [--secrets] [--home DIR]` and `restore FILE [--home DIR]`, run
 * through `dsh plugin --profile <p> exec`: arguments, the home (`--home`, `$DSH_HOME`, `~/.dsh`),
 * printing, exit codes (0 done, 1 refused, 2 usage). Deliberately loads neither the plugin nor SQLite.
 */
import { createReadStream } from 'node:fs'
import { access } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { makePrivateDir, writePrivateFile } from '../core/private-file.ts'
import { takeBackup } from './backup.ts'
import { DshNotFound, installedProfile, openDshStores, type Compression } from './dsh-runtime.ts'
import { restoreBackup } from './restore.ts'
import { errorText } from '../core/errors.ts'
import { terminalText } from '../core/names.ts'

const USAGE = `usage:
  dsh-bot-team backup [--out FILE] [--secrets] [--home DSH_HOME]
  dsh-bot-team restore FILE [--home DSH_HOME] [--folder DIR]... [--session-compression zstd|none]
Writes / reads one archive with the team folder (bot/), the team's Sessions and their workspace.
Restore into a DSH_HOME without a team, with DSH stopped there. A restore creates no folder outside
DSH_HOME unless named with --folder; presets above workspace-write, "accepts delegated work",
working folders and schedules come back lowered until you confirm them on the paired team page.`

class UsageError extends Error {}

export interface CliIo {
  env: NodeJS.ProcessEnv
  cwd: string
  out(line: string): void
  err(line: string): void
}

function homeOf(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (flag) return resolve(cwd, flag)
  if (env.DSH_HOME?.trim()) return resolve(cwd, env.DSH_HOME)
  return resolve(homedir(), '.dsh')
}

const stamp = (d: Date) => d.toISOString().replace(/[:.]/g, '-')

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        home: { type: 'string' },
        secrets: { type: 'boolean', default: false },
        'session-compression': { type: 'string' },
        folder: { type: 'string', multiple: true },
        help: { type: 'boolean', default: false },
      },
    })
    const [command, file, ...extra] = positionals
    if (values.help || command === 'help') {
      io.out(USAGE)
      return 0
    }
    if (extra.length) throw new UsageError(`unexpected argument ${extra[0]}`)
    const cwd = io.env.PWD && isAbsolute(io.env.PWD) ? io.env.PWD : io.cwd
    const home = homeOf(values.home, io.env, cwd)
    const compression = values['session-compression']
    if (compression !== undefined && compression !== 'zstd' && compression !== 'none') throw new UsageError('--session-compression is zstd or none')

    if (command === 'backup') {
      if (file) throw new UsageError('backup takes no file argument; use --out FILE')
      const started = performance.now()
      const stores = await openDshStores(home, { ...(compression ? { compression: compression as Compression } : {}) })
      try {
        const { archive, manifest } = await takeBackup({ home, secrets: values.secrets, sessions: stores.sessions })
        const out = values.out ? resolve(cwd, values.out) : join(home, 'backups', `bot-team-backup-${stamp(new Date(manifest.createdAt))}.dshbt`)
        if (!values.out) await makePrivateDir(dirname(out))
        await writePrivateFile(out, archive)
        io.out(
          `backup written: ${out} (${archive.byteLength} bytes, ${manifest.sessions.length} Sessions, ${Math.round(performance.now() - started)} ms${manifest.secrets ? ', with secrets' : ''})`,
        )
      } finally {
        await stores.close()
      }
      return 0
    }
    if (command === 'restore') {
      if (!file) throw new UsageError('restore needs the archive file')
      const started = performance.now()
      const path = resolve(cwd, file)
      await access(path)
      const archive = createReadStream(path)
      const stores = await openDshStores(home, { workspaces: true, ...(compression ? { compression: compression as Compression } : {}) })
      try {
        const report = await restoreBackup({
          archive,
          home,
          sessions: stores.sessions,
          createFolders: (values.folder ?? []).map((f) => resolve(cwd, f)),
          ...(stores.workspaces ? { workspaces: stores.workspaces } : {}),
        })
        for (const warning of report.warnings) io.err(`warning: ${warning}`)
        for (const item of report.held) io.out(`held until you confirm it on the paired team page: ${item}`)
        for (const item of report.cancelled) io.out(`not carried over: ${item}`)
        io.out(
          `restored into ${home}: ${report.sessions} Sessions (${report.events} events), ${report.files} team files, team folder ${report.teamFolder} (${Math.round(performance.now() - started)} ms)`,
        )
      } finally {
        await stores.close()
      }
      return 0
    }
    throw new UsageError(command ? `unknown command ${command}` : 'no command')
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`dsh-bot-team: ${(error as Error).message}\n${USAGE}`)
      return 2
    }
    if (error instanceof DshNotFound) {
      io.err(`dsh-bot-team: ${error.message}\n${runThrough(argv, io)}`)
      return 1
    }
    io.err(`dsh-bot-team: ${errorText(error)}`)
    return 1
  }
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`)

/**
 * The exact command to run instead: this command, with its file and home made absolute, through
 * DSH's own launcher (`<dsh> plugin --profile <p> exec dsh-bot-team …`), which lets it find DSH.
 */
export function runThrough(argv: readonly string[], io: Pick<CliIo, 'env' | 'cwd'>, profile = installedProfile() ?? 'web'): string {
  const cwd = io.env.PWD && isAbsolute(io.env.PWD) ? io.env.PWD : io.cwd
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: { home: { type: 'string' }, out: { type: 'string' } },
  })
  const [command, file] = positionals
  const args = [command ?? 'restore', ...(file ? [resolve(cwd, file)] : [])]
  if (typeof values.out === 'string') args.push('--out', resolve(cwd, values.out))
  for (const flag of ['--secrets', '--session-compression'] as const) {
    const at = argv.indexOf(flag)
    if (at >= 0) args.push(...(flag === '--secrets' ? [flag] : [flag, argv[at + 1] ?? '']))
  }
  args.push('--home', homeOf(typeof values.home === 'string' ? values.home : undefined, io.env, cwd))
  const dsh = join(io.env.HOME || homedir(), 'dsh', 'node_modules', '.bin', 'dsh')
  return [
    'Run it through the dsh you installed (the README puts it in ~/dsh; use your own path if it is elsewhere):',
    `  ${dsh} plugin --profile ${quote(profile)} exec dsh-bot-team ${args.map(quote).join(' ')}`,
  ].join('\n')
}

/** The `bin` entry: run with the process's arguments and exit with the result. */
export async function main(): Promise<void> {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    cwd: process.cwd(),
    out: (line) => process.stdout.write(`${terminalText(line)}\n`),
    err: (line) => process.stderr.write(`${terminalText(line)}\n`),
  })
}

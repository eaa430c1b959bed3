/**
 * DSH Web's host services the plugin uses (api proxy, workspace registry) as minimal shapes — they
 * exist only where DSH Web runs — and creating a Session the way DSH Web creates a chat.
 * Deliberately no fallbacks for headless hosts.
 */
import { randomUUID } from 'node:crypto'
import { realpathSync } from 'node:fs'

export interface ApiResponse<T> {
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }
}

export interface ApiProxy {
  sessions: {
    create(req: { rpcId: string; payload: Record<string, unknown> }): Promise<ApiResponse<{ sessionId: string }>>
    rename(req: { rpcId: string; payload: { sessionId: string; title: string } }): Promise<ApiResponse<unknown>>
    models(req: { rpcId: string; payload: { sessionId: string } }): Promise<ApiResponse<unknown>>
  }
}

export interface Workspace {
  id: string
  path: string
  title?: string
  sessionIds: readonly string[]
  attachSession(id: string): Promise<unknown>
  setTitle?(title: string): Promise<unknown> | unknown
}

/** DSH Web's workspace registry (dsh-workspace): the folders its session browser groups by. */
export interface WorkspaceRegistry {
  list(): Workspace[]
  create(path: string, title?: string): Promise<Workspace> | Workspace
  archiveSession(sessionId: string): Promise<unknown> | unknown
  readonly archivedSessionIds?: readonly string[]
}

export const rpcId = (): string => `bot-team-${randomUUID()}`

export function unwrap<T>(response: ApiResponse<T>, what: string): T {
  if (response.result.ok) return response.result.value
  throw new Error(`${what} failed: ${response.result.error.message}`)
}

/** The DSH Web workspace at `folder` (created on first use, titled `title`), or undefined without DSH Web. */
export async function teamWorkspace(registry: WorkspaceRegistry | undefined, folder: string, title = 'Bot team'): Promise<Workspace | undefined> {
  if (!registry) return undefined
  const path = realpathSync(folder)
  return registry.list().find((w) => w.path === path) ?? (await registry.create(path, title))
}

/** Create a titled Session as DSH Web does (api proxy), in the team workspace when there is one. */
export async function createWebSession(
  api: ApiProxy,
  registry: WorkspaceRegistry | undefined,
  opts: { sessionId: string; folder: string; title: string; agentPreset?: string | undefined; workspaceTitle?: string },
): Promise<void> {
  const workspace = await teamWorkspace(registry, opts.folder, opts.workspaceTitle)
  unwrap(
    await api.sessions.create({
      rpcId: rpcId(),
      payload: {
        ...(workspace ? { sessionId: opts.sessionId, workspaceId: workspace.id } : { sessionId: opts.sessionId, cwd: opts.folder }),
        ...(opts.agentPreset ? { agentPreset: opts.agentPreset } : {}),
      },
    }),
    'creating the Session',
  )
  unwrap(await api.sessions.rename({ rpcId: rpcId(), payload: { sessionId: opts.sessionId, title: opts.title } }), 'titling the Session')
}

/**
 * Which model a Bot's work goes to, as DSH sees it: the route a Session's latest request was
 * actually sent to (its `request/header`, what DSH logged after every routing listener ran), and
 * the `provider/model` DSH itself gives a Session without a selection of its own (its
 * `agentDefaultModel` service, in every DSH bundle on rc.8). Read only; never throws — a missing
 * service or a Session that never sent a request is `undefined`.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { ModelRoute } from '../core/models.ts'

/** The route of a Session's latest request, with its output cap when the request set one. */
export function requestRoute(session: { requestHeader(): { config?: unknown } | undefined }): (ModelRoute & { maxTokens?: number }) | undefined {
  const config = session.requestHeader()?.config as { provider?: unknown; model?: unknown; maxTokens?: unknown } | undefined
  if (typeof config?.provider !== 'string' || typeof config.model !== 'string' || !config.provider || !config.model) return undefined
  return {
    provider: config.provider,
    model: config.model,
    ...(typeof config.maxTokens === 'number' && config.maxTokens > 0 ? { maxTokens: config.maxTokens } : {}),
  }
}

/** DSH's own default model (`provider/model`), where this DSH has the service. */
export function dshDefaultModel(ctx: Context): string | undefined {
  try {
    const selection = ctx.get('agentDefaultModel')?.currentSelection()
    return selection?.provider && selection.model ? `${selection.provider}/${selection.model}` : undefined
  } catch {
    return undefined
  }
}

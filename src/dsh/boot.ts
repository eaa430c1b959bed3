/**
 * Work that must wait for the whole plugin tree: Cordis's loader resolves once every plugin of the
 * boot is applied (in DSH Web the api proxy a Session is created through may come up after this
 * plugin). Without a loader (an in-process host) the work runs now and its promise is returned, so
 * a service's `init` can await it. A failed boot still runs it.
 */
import type { Context } from '@deepseek-ai/cordis'

/** Run `task` after the boot; `task` reports its own failures. */
export function afterBoot<T>(ctx: Context, task: () => T): T | undefined {
  const loader = ctx.get('loader')
  if (!loader) return task()
  void loader.await().then(task, task)
  return undefined
}

/**
 * Work that must wait for the whole plugin tree: Cordis's loader resolves once every plugin of the
 * boot is applied (in DSH Web the api proxy a Session is created through may come up after this
 * plugin). A failed boot still runs it. Without a loader (an in-process host) the entry holds the
 * work of its services instead (`holdBoot`) until all of them are up, runs it then, and returns
 * only once it ran: the same order as under a loader, and the team is open when the plugin is.
 * Outside a hold (a service mounted on its own, or one that restarts later) the work runs now.
 */
import type { Context, Fiber } from '@deepseek-ai/cordis'

interface Hold {
  tasks: (() => unknown)[]
  released: boolean
}

/** The entry fibers holding their services' start-up work (in-process hosts only). */
const holds = new WeakMap<Fiber, Hold>()

/** The hold of the nearest enclosing fiber that has one (a service's, or one of its sub-plugins'). */
function holdOf(ctx: Context): Hold | undefined {
  for (let fiber: Fiber = ctx.fiber; fiber.runtime; fiber = fiber.parent.fiber) {
    const hold = holds.get(fiber)
    if (hold) return hold
  }
  return undefined
}

/** Run `task` after the boot; `task` reports its own failures. */
export function afterBoot(ctx: Context, task: () => unknown): void {
  const loader = ctx.get('loader')
  if (loader) {
    void loader.await().then(task, task)
    return
  }
  const hold = holdOf(ctx)
  if (hold && !hold.released) hold.tasks.push(task)
  else void task()
}

/**
 * For the entry: hold the `afterBoot` work of everything mounted under `ctx` until the returned
 * `release()`, which runs the work held so far, in the order it was asked for, and resolves when
 * it has run. With a loader nothing is held (the loader's own wait applies) and `release()`
 * resolves at once.
 */
export function holdBoot(ctx: Context): () => Promise<void> {
  if (ctx.get('loader')) return () => Promise.resolve()
  const hold: Hold = { tasks: [], released: false }
  holds.set(ctx.fiber, hold)
  return async () => {
    hold.released = true
    await Promise.allSettled(hold.tasks.splice(0).map((task) => Promise.resolve().then(task)))
  }
}

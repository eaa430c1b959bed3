/**
 * Loading a DSH package the running host has but this plugin does not depend on.
 *
 * The Bot compaction engine subclasses DSH's `BasicCompactionEngine`, which lives in
 * `@deepseek-ai/dsh-compaction-basic` — a package of DSH's own install, not of this bundle. It is
 * looked up, in order: from this module (a bundle installed beside DSH), from DSH's CLI package
 * (`@deepseek-ai/dsh`, which depends on it), and from the script DSH was started with
 * (`process.argv[1]`). The first that resolves is imported, so the class is DSH's own module
 * instance whenever DSH's install is the one found.
 *
 * Deliberately narrow: resolution only; no fallback implementation — when DSH's package cannot be
 * found the caller reports that and the feature stays off.
 */
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

function anchors(): string[] {
  const list = [import.meta.url]
  try {
    list.push(createRequire(import.meta.url).resolve('@deepseek-ai/dsh/package.json'))
  } catch {
    // DSH's CLI package is not resolvable from here (a bundle installed elsewhere).
  }
  if (process.argv[1]) list.push(process.argv[1])
  return list
}

/** Where a package resolves from the host, or undefined when no anchor finds it. */
export function resolveFromHost(specifier: string): string | undefined {
  for (const anchor of anchors()) {
    try {
      return createRequire(anchor).resolve(specifier)
    } catch {
      // not from this anchor
    }
  }
  return undefined
}

/** Import a package from the host (see above); throws naming the package when none finds it. */
export async function importFromHost<T>(specifier: string): Promise<T> {
  const path = resolveFromHost(specifier)
  if (!path) throw new Error(`${specifier} is not installed with this DSH`)
  return (await import(pathToFileURL(path).href)) as T
}

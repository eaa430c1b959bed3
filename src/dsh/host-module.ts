/**
 * Loading a DSH package the running host has but the bundle does not depend on (the compaction
 * engine's base class): from this module, from DSH's CLI package, then from the script DSH started
 * with. Deliberately resolution only; no fallback implementation.
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

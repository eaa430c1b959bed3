// e2e global setup: build the bundle and pack it once per run (see scripts/pack.ts).
import type { TestProject } from 'vitest/node'
import { buildAndPack } from '../../scripts/pack.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    bundleTarball: string
  }
}

export default function setup(project: TestProject) {
  project.provide('bundleTarball', buildAndPack().tarball)
}

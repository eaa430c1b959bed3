#!/usr/bin/env node
// The package's command (backup / restore); see src/backup/cli.ts. Runs the built bundle, so it
// needs only the `node` on PATH — no TypeScript, no native SQLite module.
import { main } from '../dist/cli.mjs'

await main()

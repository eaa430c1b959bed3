/**
 * The team page at `/bot-team`, server side: a small HTML document and the page's script, which is
 * the browser half's build (`src/client/page.ts` → `dist-client/page.js`), read from disk. The
 * server writes no script of its own; the policy (`PAGE_CSP`) allows only that file, nothing inline.
 */
import { readFile } from 'node:fs/promises'

export const PAGE_SCRIPT_PATH = '/bot-team/page.js'

/** The page may run only its own script and talk only to this server. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

export const TEAM_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bot Team</title>
<script src="${PAGE_SCRIPT_PATH}" defer></script>
</head>
<body>
<main><h1>Bot Team</h1><p id="summary">Loading…</p></main>
</body>
</html>
`

/** Where the build puts the page's script: beside `dist/` in the bundle, at the repository's root from source. */
const SCRIPT_FILES = [new URL('../dist-client/page.js', import.meta.url), new URL('../../dist-client/page.js', import.meta.url)]

/** The page's script, or `undefined` when this install has no build of it. */
export async function teamPageScript(): Promise<string | undefined> {
  for (const file of SCRIPT_FILES) {
    try {
      return await readFile(file, 'utf8')
    } catch {
      // not here
    }
  }
  return undefined
}

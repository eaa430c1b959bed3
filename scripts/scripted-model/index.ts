// Scripted model — public entry: re-exports the script format/core (format.ts), the in-process
// LlmAdapter (adapter.ts) and the loopback OpenAI-compatible SSE server (server.ts).
// Owns nothing itself; import from here in tests and tools.

export * from './format.ts'
export * from './adapter.ts'
export * from './server.ts'

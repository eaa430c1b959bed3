// Scripted model — public entry: re-exports the script format/core (format.ts), the in-process
// LlmAdapter (adapter.ts) and the loopback OpenAI-compatible SSE server (server.ts).
// Owns nothing itself; import from here in tests and tools.
//
// Quick use:
//   const model = new ScriptedModel({
//     steps: [
//       { toolCalls: [{ name: 'list_bots', args: {} }], usage: { input: 50, output: 9, cached: 400 } },
//       req => lastToolResults(req).length ? { text: 'done' } : undefined,   // undefined = not yet
//       { fail: 'context-overflow' },
//     ],
//     fallback: { text: 'ok' },        // after the steps run out
//     title: 'My title',               // DSH's session-title side call; never consumes steps
//   })                                 // or { 'model-a': Script, 'model-b': Script, '*': Script }
//   ctx.llm.registerAdapter(['mock'], new ScriptedAdapter(model))          // in-process
//   const srv = await startScriptedServer(model)  // DEEPSEEK_BASE_URL=srv.url DEEPSEEK_API_KEY=x
//   model.requests / model.loopRequests()         // what the model saw (normalised)
// CLI: node scripts/scripted-model/server.ts --port 0 --script <file.json|module.ts> [--log f.jsonl]
//   prints "scripted model on http://127.0.0.1:<port>".

export * from './format.ts'
export * from './adapter.ts'
export * from './server.ts'

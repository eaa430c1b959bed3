/**
 * Where the Bot compaction engines DSH mounts (inside a preset's isolated realm, maybe another module
 * instance) meet the plugin's `botCompaction`: a process-wide table on `globalThis`, keyed by Cordis
 * root. Deliberately holds references and answers lookups only.
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { ContentBlock, Message, TokenUsage, ToolSchema } from '@deepseek-ai/dsh-llm'

/** What DSH's compaction backend hands `summarize()` (mirrors compaction-basic's `SummarizationInput`). */
export interface SummarizationInput {
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
  readonly messages: readonly Message[]
}

/** What `summarize()` returns (mirrors compaction-basic's `SummaryResult`, loosely). */
export interface SummaryResult {
  summary: ContentBlock[]
  provider: string
  model: string
  maxTokens?: number
  usage?: TokenUsage
  rawOutput?: ContentBlock[]
  llmStreamCall?: true
}

/** The part of an engine the plugin uses. */
export interface BotEngine {
  compactNow(agent: Agent, signal: AbortSignal, sourceCommandId?: never): Promise<unknown>
}

/** The plugin side: which Sessions are Bot Sessions, and the text of their checkpoints. */
export interface CheckpointWriter {
  /** True for a Bot's own chat (any part) or its Session in a group. */
  owns(sessionId: string): boolean
  /**
   * The checkpoint for a Bot Session: `dsh` runs DSH's own summarizer on the same input (one model
   * call on the conversation's own prefix); the writer adds the messages to the Bot word for word.
   */
  summarize(input: SummarizationInput, agent: Agent, dsh: () => Promise<SummaryResult>): Promise<SummaryResult>
}

interface Table {
  engines: Map<object, Set<BotEngine>>
  writers: Map<object, CheckpointWriter>
}

const KEY = Symbol.for('dsh-bot-team/compaction')

function table(): Table {
  const g = globalThis as { [KEY]?: Table }
  g[KEY] ??= { engines: new Map(), writers: new Map() }
  return g[KEY]
}

/** Add an engine under its Cordis root; returns its removal. */
export function addEngine(root: object, engine: BotEngine): () => void {
  const engines = table().engines
  const set = engines.get(root) ?? new Set()
  engines.set(root, set.add(engine))
  return () => {
    set.delete(engine)
    if (set.size === 0 && engines.get(root) === set) engines.delete(root)
  }
}

/** The newest live engine under a root (every generation acts on the agent it is given). */
export function engineFor(root: object): BotEngine | undefined {
  const set = table().engines.get(root)
  return set ? [...set].at(-1) : undefined
}

/** Set the writer for a root; returns its removal. */
export function setWriter(root: object, writer: CheckpointWriter): () => void {
  const writers = table().writers
  writers.set(root, writer)
  return () => {
    if (writers.get(root) === writer) writers.delete(root)
  }
}

export function writerFor(root: object): CheckpointWriter | undefined {
  return table().writers.get(root)
}

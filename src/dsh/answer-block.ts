/**
 * An answer to one `llm/stream` request without a provider: the chunk grammar of one streamed text
 * block (block-start, text deltas, block-end with the whole text, zero usage, finish). Used where the
 * plugin answers a Session's model request itself (a room, a handoff package's acknowledgement).
 */
import type { ReplayEnvelope, StreamChunk } from '@deepseek-ai/dsh-llm'

/** The chunk grammar of one streamed text block, as DSH's loop reads it in text mode. */
export class TextBlock {
  private text = ''
  private started = false;
  *delta(piece: string): Generator<StreamChunk> {
    if (!this.started) {
      this.started = true
      yield { type: 'block-start', index: 0, blockType: 'text' }
    }
    this.text += piece
    yield { type: 'text-delta', index: 0, text: piece }
  }
  /** `replayState` rides the `finish` chunk; DSH keeps it on the assistant message's source. */
  *end(fallback: string, replayState?: ReplayEnvelope): Generator<StreamChunk> {
    if (!this.started) yield* this.delta(fallback)
    yield { type: 'block-end', index: 0, block: { type: 'text', text: this.text } }
    yield { type: 'usage', usage: { inputTokens: 0, outputTokens: 0 } }
    yield { type: 'finish', reason: { kind: 'stop' }, ...(replayState === undefined ? {} : { replayState }) }
  }
}

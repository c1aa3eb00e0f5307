/**
 * AWS's binary event-stream framing (`application/vnd.amazon.eventstream`), fed bytes split
 * anywhere: each message is cut at its length prelude and decoded by the maintained codec the
 * AWS SDKs use (`@smithy/core`'s `EventStreamCodec`: prelude and message CRCs, typed headers).
 * A message larger than {@link MAX_FRAME_BYTES} or one that fails its checks stops the decoding.
 * @module
 */
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { Message } from '@smithy/types';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** The largest event-stream message read (Bedrock's are a few KB; a tool call's input arrives in pieces). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The prelude (total and header lengths, prelude CRC) and the message CRC. */
const PRELUDE_BYTES = 12;
const MIN_FRAME_BYTES = 16;

/** One stream's decoder: whole messages out, in order. */
export class EventStreamFrames {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private buffered: Buffer = Buffer.alloc(0);
  /** Why decoding stopped (a bad or oversized message), once it has. */
  broken: string | null = null;

  push(chunk: Buffer): Message[] {
    if (this.broken) return [];
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: Message[] = [];
    while (this.buffered.length >= PRELUDE_BYTES) {
      const length = this.buffered.readUInt32BE(0);
      if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES)
        return this.stop(out, 'event-stream message of a bad size');
      if (this.buffered.length < length) break;
      try {
        out.push(this.codec.decode(this.buffered.subarray(0, length)));
      } catch {
        return this.stop(out, 'event-stream message failed its checks');
      }
      this.buffered = this.buffered.subarray(length);
    }
    return out;
  }

  /** Whether bytes of an unfinished message are left over (the body ended mid-message). */
  get partial(): boolean {
    return this.buffered.length > 0;
  }

  private stop(out: Message[], reason: string): Message[] {
    this.broken = reason;
    this.buffered = Buffer.alloc(0);
    return out;
  }
}

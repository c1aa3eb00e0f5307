/**
 * An upstream body as the chunks it arrived in. Joining a large answer into one buffer would copy
 * every byte once more and make each in-flight answer hold its bytes twice; the adapters read the
 * body through this view instead, and only the few spans that straddle two chunks are copied.
 * Offsets are positions in the whole body.
 * @module
 */
export class ByteChunks {
  /** Where each chunk starts in the body. */
  private readonly starts: number[] = [];
  /** The body's size in bytes. */
  readonly length: number;

  constructor(readonly chunks: readonly Buffer[]) {
    let at = 0;
    for (const c of chunks) {
      this.starts.push(at);
      at += c.length;
    }
    this.length = at;
  }

  /** The index of the chunk holding byte `i` (`chunks.length` past the end). */
  private chunkOf(i: number): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.starts[mid] as number) + (this.chunks[mid] as Buffer).length <= i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The byte at `i`, or undefined past the end (as a Buffer's index reads). */
  byteAt(i: number): number | undefined {
    const k = this.chunkOf(i);
    return k < this.chunks.length ? (this.chunks[k] as Buffer)[i - (this.starts[k] as number)] : undefined;
  }

  /** The first position at or after `from` where `needle` (a few bytes) starts, or -1. */
  indexOf(needle: Buffer | number, from = 0): number {
    const width = typeof needle === 'number' ? 1 : needle.length;
    for (let k = this.chunkOf(from); k < this.chunks.length; k++) {
      const chunk = this.chunks[k] as Buffer;
      const start = this.starts[k] as number;
      const local = Math.max(0, from - start);
      const hit = chunk.indexOf(needle, local);
      if (hit !== -1) return start + hit;
      // A match that begins in this chunk's last bytes and ends in the next chunk(s).
      const edge = Math.max(local, chunk.length - width + 1);
      if (width > 1 && edge < chunk.length && k + 1 < this.chunks.length) {
        const window = this.bytes(start + edge, Math.min(this.length, start + chunk.length + width - 1));
        const across = window.indexOf(needle);
        if (across !== -1) return start + edge + across;
      }
    }
    return -1;
  }

  /** Bytes [from, to): a view when they lie in one chunk, else a copy of just that span. */
  bytes(from: number, to: number): Buffer {
    const k = this.chunkOf(from);
    const chunk = this.chunks[k];
    if (!chunk || to <= from) return Buffer.alloc(0);
    const start = this.starts[k] as number;
    if (to <= start + chunk.length) return chunk.subarray(from - start, to - start);
    const parts: Buffer[] = [];
    for (let j = k; j < this.chunks.length && (this.starts[j] as number) < to; j++) {
      const s = this.starts[j] as number;
      parts.push((this.chunks[j] as Buffer).subarray(Math.max(0, from - s), to - s));
    }
    return Buffer.concat(parts, to - from);
  }

  /** Bytes [from, to) decoded as UTF-8 (a character split between chunks decodes whole). */
  text(from = 0, to = this.length): string {
    return this.bytes(from, to).toString('utf8');
  }
}

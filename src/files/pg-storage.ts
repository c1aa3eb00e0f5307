/**
 * {@link FileStorage} over the `file_chunks` table: content split into fixed-size `bytea` chunks,
 * so it works the same on PGlite and on a Postgres shared by every replica, and neither an
 * upload nor a download ever holds more than one chunk in memory.
 * @module
 */
import type { Database, Queryable } from '../store/db';
import type { FileStorage } from './types';

/** Raised when a file's chunks are not the contiguous run the upload wrote (e.g. deleted mid-read). */
export class MissingChunkError extends Error {
  constructor(fileId: string, seq: number) {
    super(`file ${fileId}: chunk ${seq} is missing`);
    this.name = 'MissingChunkError';
  }
}

/** How chunk bytes cross the driver. */
interface ChunkCodec {
  insert: string;
  select: string;
  param(bytes: Buffer): unknown;
  bytes(value: unknown): Buffer;
}

const SELECT = 'FROM file_chunks WHERE file_id = $1 AND seq >= $2 ORDER BY seq LIMIT 1';

/** pg sends a Buffer parameter as binary and parses `bytea` output natively: the fastest path there. */
const BINARY: ChunkCodec = {
  insert: 'INSERT INTO file_chunks (file_id, seq, data) VALUES ($1, $2, $3)',
  select: `SELECT seq, data ${SELECT}`,
  param: (bytes) => bytes,
  bytes: (value) => {
    const u8 = value as Uint8Array;
    return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
  },
};

/**
 * PGlite (de)serialises `bytea` in JavaScript, an order of magnitude slower than letting Postgres
 * convert base64 text and Node decode it natively. Node's base64 decoder skips the line breaks
 * `encode` inserts.
 */
const BASE64: ChunkCodec = {
  insert: `INSERT INTO file_chunks (file_id, seq, data) VALUES ($1, $2, decode($3, 'base64'))`,
  select: `SELECT seq, encode(data, 'base64') AS data ${SELECT}`,
  param: (bytes) => bytes.toString('base64'),
  bytes: (value) => Buffer.from(value as string, 'base64'),
};

/** Chunked content in Postgres. */
export class PostgresChunkStorage implements FileStorage {
  private readonly codec: ChunkCodec;

  /**
   * @param chunkBytes - size of every chunk but the last (config `files.chunkBytes`); changing it
   *   later is safe, because reads follow the stored sequence numbers, not the size.
   */
  constructor(
    private readonly db: Database,
    private readonly chunkBytes: number,
  ) {
    this.codec = db.kind === 'pglite' ? BASE64 : BINARY;
  }

  async put(tx: Queryable, fileId: string, source: AsyncIterable<Uint8Array>): Promise<number> {
    // One buffer, reused: each insert is awaited before the buffer is filled again.
    const chunk = Buffer.allocUnsafe(this.chunkBytes);
    let filled = 0;
    let seq = 0;
    let total = 0;
    const flush = async () => {
      await tx.query(this.codec.insert, [fileId, seq++, this.codec.param(chunk.subarray(0, filled))]);
      filled = 0;
    };
    for await (const piece of source) {
      let offset = 0;
      while (offset < piece.length) {
        const n = Math.min(piece.length - offset, this.chunkBytes - filled);
        chunk.set(piece.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === this.chunkBytes) await flush();
      }
      total += piece.length;
    }
    if (filled > 0) await flush();
    return total;
  }

  async *read(fileId: string): AsyncIterable<Buffer> {
    for (let seq = 0; ; seq++) {
      const rows = await this.db.query<{ seq: number; data: unknown }>(this.codec.select, [fileId, seq]);
      const row = rows[0];
      if (!row) return;
      if (row.seq !== seq) throw new MissingChunkError(fileId, seq);
      yield this.codec.bytes(row.data);
    }
  }

  async delete(tx: Queryable, fileIds: readonly string[]): Promise<void> {
    if (fileIds.length === 0) return;
    await tx.query('DELETE FROM file_chunks WHERE file_id IN (SELECT jsonb_array_elements_text($1::jsonb))', [
      JSON.stringify(fileIds),
    ]);
  }
}

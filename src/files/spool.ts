/**
 * The upload spool: a bounded directory where an upload's bytes wait until the client has sent
 * all of them. The database is touched only once the body is complete, so a slow or stalled
 * client holds a file on disk, never a database connection (PGlite has only one) nor a
 * replica-wide slot. The spool is bounded in bytes, reserved as they arrive, so a client holds no
 * more of it than it has actually sent; every file is removed on every path (and at shutdown).
 * @module
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ServiceUnavailableError } from '../errors';

/** An upload body on disk, waiting to be stored. */
export interface SpooledFile {
  /** Bytes in the file. */
  readonly size: number;
  /** The bytes, in order, one read buffer at a time. */
  read(): AsyncIterable<Buffer>;
  /** Remove the file and give its bytes back to the spool; idempotent. */
  dispose(): Promise<void>;
}

/** The `reason` of the 503 refusing a piece that would overfill the spool. */
export const SPOOL_FULL = 'the upload spool of this replica is full';

/** Size of the pieces a spooled file is read back in (the storage re-chunks them anyway). */
const READ_BYTES = 256 * 1024;

/** The bounded spool of one replica. */
export class UploadSpool {
  private used = 0;
  /** Files written and not yet removed, so that shutdown removes whatever is still in flight. */
  private readonly live = new Set<string>();
  private readonly dir: string;
  /** The directory, created on first use. */
  private made: Promise<unknown> | undefined;

  /**
   * @param dir - where spool files go, each under a new random name (so replicas sharing a disk
   *   never touch each other's files); null → the OS temp directory
   * @param maxBytes - bytes all spooled files may hold together
   * @param onUsage - told the bytes in use whenever they change (the spool gauge)
   */
  constructor(
    dir: string | null,
    readonly maxBytes: number,
    private readonly onUsage: (bytes: number) => void = () => undefined,
  ) {
    this.dir = dir ?? os.tmpdir();
  }

  /**
   * Write `source` to a new spool file. Each piece reserves its bytes before it is written.
   * @throws ServiceUnavailableError when the spool is full; whatever `source` throws. Either way
   *   the partial file is removed and its bytes given back.
   */
  async write(source: AsyncIterable<Uint8Array>): Promise<SpooledFile> {
    this.made ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
      this.made = undefined;
      throw err;
    });
    await this.made;
    const file = path.join(this.dir, `switchyard-upload-${randomUUID()}`);
    this.live.add(file);
    let size = 0;
    const reserve = async function* (this: UploadSpool, pieces: AsyncIterable<Uint8Array>) {
      for await (const piece of pieces) {
        this.take(piece.length);
        size += piece.length;
        yield piece;
      }
    }.bind(this);
    const sink = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(source, reserve, sink);
    } catch (err) {
      // The pipeline fails as soon as the source does, while the file's open may still be pending:
      // removed before that open completes, the file would be created after it, and stay.
      if (!sink.closed) await once(sink, 'close').catch(() => undefined); // an error of the sink's is the pipeline's, thrown below
      await this.remove(file, size);
      throw err;
    }
    let disposed: Promise<void> | undefined;
    return {
      size,
      read: () => createReadStream(file, { highWaterMark: READ_BYTES }),
      dispose: () => (disposed ??= this.remove(file, size)),
    };
  }

  /** Remove every spool file still there (at shutdown, once no request runs). */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((file) => unlink(file).catch(() => undefined))); // ENOENT: never created
    this.live.clear();
  }

  private take(bytes: number): void {
    if (this.used + bytes > this.maxBytes) {
      throw new ServiceUnavailableError({ reason: SPOOL_FULL, limit_bytes: this.maxBytes }, 1);
    }
    this.used += bytes;
    this.onUsage(this.used);
  }

  private async remove(file: string, bytes: number): Promise<void> {
    this.used -= bytes;
    this.onUsage(this.used);
    this.live.delete(file);
    await unlink(file).catch(() => undefined); // ENOENT: never created, or already removed
  }
}

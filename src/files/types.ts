/**
 * The file record as the gateway uses it internally, and the storage seam for file content.
 * Metadata always lives in Postgres (`files`); content goes through {@link FileStorage}, whose
 * first backend keeps chunks in Postgres too, so an object store can be added without touching
 * the service or the routes.
 * @module
 */
import type { Queryable } from '../store/db';

/** One stored file (metadata only). */
export interface FileRecord {
  /** `file-` + 24 base62 characters. */
  id: string;
  /** Insertion order inside the workspace; the cursor of `GET /files` is built from it. */
  seq: string;
  orgId: string;
  workspaceId: string;
  filename: string;
  /** Sniffed from the content at upload, never taken from the client. */
  mimeType: string;
  sizeBytes: number;
  createdAt: Date;
}

/**
 * Where file content lives. Writes and deletes take the caller's transaction so that content and
 * metadata commit or roll back together: a failed, oversize or rejected upload leaves nothing, and
 * a delete removes both or neither. An object-store backend would write objects under a staging
 * name in `put` and reconcile after commit; the service would not change.
 */
export interface FileStorage {
  /**
   * Store the content of `fileId`, read from `source` one piece at a time (backpressure: the
   * next piece is read only after the previous one is written). Throws whatever `source` throws.
   * @returns the number of bytes stored
   */
  put(tx: Queryable, fileId: string, source: AsyncIterable<Uint8Array>): Promise<number>;
  /** The stored content, in order, one chunk at a time (never the whole file in memory). */
  read(fileId: string): AsyncIterable<Buffer>;
  /** Remove the content of every one of `fileIds` inside `tx` (idempotent; a workspace delete passes all its files). */
  delete(tx: Queryable, fileIds: readonly string[]): Promise<void>;
}

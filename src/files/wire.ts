/**
 * The wire forms of the files resource (reference notes §8, §9): the File object, the deletion
 * confirmation and the list page (its cursor is sealed in `cursor.ts`). `_shape: "openrouter"` is the
 * discriminator the official SDK needs to parse them.
 * @module
 */
import { randomInt } from 'node:crypto';
import type { FileRecord } from './types';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new file id: `file-` + 24 base62 characters (~143 bits of randomness). */
export function newFileId(): string {
  let out = 'file-';
  for (let i = 0; i < 24; i++) out += BASE62[randomInt(62)];
  return out;
}

const FILE_ID = /^file-[0-9A-Za-z]{24}$/;

/**
 * Could `id` be one of our file ids? Anything else names no file, so it is answered 404 exactly
 * like an unknown file (the spec lists no 400 for these routes), without touching the database.
 */
export function isFileId(id: string): boolean {
  return FILE_ID.test(id);
}

/** The File object. Stored uploads are downloadable through `GET /files/{id}/content`. */
export function toWireFile(f: FileRecord) {
  return {
    _shape: 'openrouter' as const,
    id: f.id,
    type: 'file' as const,
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: f.sizeBytes,
    created_at: f.createdAt.toISOString(),
    downloadable: true,
  };
}

/** The body of a successful `DELETE /files/{id}`. */
export function toWireDeleted(id: string) {
  return { _shape: 'openrouter' as const, id, type: 'file_deleted' as const };
}

/** One page of `GET /files`. */
export function toWirePage(files: FileRecord[], cursor: string | null) {
  const last = files[files.length - 1];
  return {
    _shape: 'openrouter' as const,
    data: files.map(toWireFile),
    cursor,
    first_id: files[0]?.id ?? null,
    last_id: last?.id ?? null,
    has_more: cursor !== null,
  };
}

/** `Content-Disposition` for a download: an ASCII fallback name plus the exact name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

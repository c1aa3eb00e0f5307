/**
 * The `GET /files` cursor, sealed: one AES-256 block holding the listing position and a tag of
 * the workspace it belongs to, under a key every replica reads from the database
 * (`gateway_secrets`, migration 009). The position (a counter shared by every tenant) is never
 * visible, a cursor cannot be forged or edited, and one workspace's cursor is refused in another.
 * @module
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { ValidationError } from '../errors';
import type { Queryable } from '../store/db';

const VERSION = 'f2';
/** A sealed cursor: version tag, a dot, one base64url block (16 bytes → 22 characters). */
const SEALED = /^f2\.([A-Za-z0-9_-]{22})$/;
const MAX_SEQ = 9223372036854775807n;

/** Tag of a workspace: 8 bytes of a hash of its scope. */
function scopeTag(orgId: string, workspaceId: string): Buffer {
  return createHash('sha256').update(`${orgId}:${workspaceId}`).digest().subarray(0, 8);
}

function badCursor(): ValidationError {
  return new ValidationError([
    { path: 'query.cursor', message: 'is not a cursor returned by GET /files for this workspace' },
  ]);
}

/** Seals and opens cursors with one key. */
export class CursorSeal {
  constructor(private readonly key: Buffer) {}

  /** The cursor continuing a listing of the workspace after position `seq`. */
  seal(scope: { orgId: string; workspaceId: string }, seq: string): string {
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(BigInt(seq), 0);
    scopeTag(scope.orgId, scope.workspaceId).copy(block, 8);
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return `${VERSION}.${Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url')}`;
  }

  /**
   * The position a cursor continues after.
   * @throws ValidationError for anything not sealed here for this workspace
   */
  open(scope: { orgId: string; workspaceId: string }, cursor: string): string {
    const m = SEALED.exec(cursor);
    if (!m?.[1]) throw badCursor();
    const sealed = Buffer.from(m[1], 'base64url');
    if (sealed.length !== 16) throw badCursor();
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
    if (!block.subarray(8).equals(scopeTag(scope.orgId, scope.workspaceId))) throw badCursor();
    const seq = block.readBigUInt64BE(0);
    if (seq > MAX_SEQ) throw badCursor();
    return seq.toString();
  }
}

/** The shared cursor key, read once from the database (every replica gets the same one). */
export async function loadCursorSeal(q: Queryable): Promise<CursorSeal> {
  const rows = await q.query<{ secret: string }>("SELECT secret FROM gateway_secrets WHERE name = 'files_cursor'");
  const secret = rows[0]?.secret;
  if (!secret) throw new Error('gateway_secrets has no files_cursor secret: run the migrations');
  return new CursorSeal(createHash('sha256').update(`switchyard files cursor\0${secret}`).digest());
}

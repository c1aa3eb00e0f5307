/**
 * The files resource: upload (spooled to disk, then stored inside one transaction with the
 * metadata row), list, read, download and delete, each confined to one workspace the calling key may
 * reach. An inference key reaches only its own workspace; a management key reaches every
 * workspace of its organization. Anything else, including another organization's file, is a 404,
 * so a key can never learn that a file exists elsewhere.
 * @module
 */
import type { Request } from 'express';
import pLimit from 'p-limit';
import { GatewayError, NotFoundError, RateLimitError, ValidationError } from '../errors';
import type { ApiKeyRecord } from '../keys/types';
import type { Metrics } from '../observability/metrics';
import type { Database, Queryable } from '../store/db';
import { findDefaultWorkspace, findWorkspace, lockLiveWorkspace } from '../workspaces/repository';
import { inspectUpload, type UploadFacts } from './inspect';
import { discardBody, receiveFile } from './multipart';
import * as repo from './repository';
import type { FileRecord, FileStorage } from './types';
import { newFileId } from './wire';
import { SPOOL_FULL, type SpooledFile, type UploadSpool } from './spool';
import { OrgUploadSlots } from './upload-slots';
import { loadCursorSeal, type CursorSeal } from './cursor';
import type { Wire } from '../wire';

/** Validated query of `GET /files` (schema `files.list.query`; `provider` is refused before this). */
export type ListFilesQuery = Wire<'files.list.query'>;

/** A file and a stream of its bytes, for `GET /files/{id}/content`. */
export interface FileContent {
  file: FileRecord;
  body: AsyncIterable<Buffer>;
}

/** Settings of {@link FileService} (config `files.*`). */
export interface FileServiceOptions {
  /** Largest accepted upload in bytes. */
  maxBytes: number;
  /**
   * Spooled uploads written into the database at once on this replica. Each holds a connection,
   * but only for as long as the database takes (the body is already on disk), so uploads never
   * take the whole pool; the others wait their turn.
   */
  maxConcurrentUploads: number;
  /** Uploads one organization has in progress at once on this replica; beyond it, 429 with `Retry-After`. */
  maxConcurrentUploadsPerOrg: number;
  /** An upload sending nothing for this long is cut with 408. */
  uploadIdleTimeoutMs: number;
  /** An upload not complete within this is cut with 408. */
  uploadDeadlineMs: number;
}

const MAX_FILENAME = 255;

/** Strip control characters and cap the length; the name is a label only. */
function cleanFilename(raw: string): string {
  const name = raw
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_FILENAME);
  return name === '' ? 'file' : name;
}

/** A received upload waiting in the spool to be stored. */
interface SpooledUpload {
  spooled: SpooledFile;
  filename: string;
  mediaType: string;
}

/** Files operations over one database and one content store. */
export class FileService {
  /** Each organization's uploads in progress on this replica. */
  private readonly slots: OrgUploadSlots;
  /** Runs at most `maxConcurrentUploads` store transactions at once; the rest wait their turn. */
  private readonly storing: pLimit.Limit;
  /** The cursor key, read from the database on first use. */
  private seal: Promise<CursorSeal> | undefined;

  constructor(
    private readonly db: Database,
    private readonly storage: FileStorage,
    private readonly metrics: Metrics,
    private readonly options: FileServiceOptions,
    private readonly spool: UploadSpool,
  ) {
    this.slots = new OrgUploadSlots(options.maxConcurrentUploadsPerOrg);
    this.storing = pLimit(options.maxConcurrentUploads);
    // Both series exist from the start, so a dashboard or alert sees 0 rather than nothing.
    for (const stage of ['receiving', 'storing']) metrics.fileUploadsInProgress.labels({ stage }).set(0);
  }

  /** Remove the spool files still there (at shutdown, after the server stopped taking requests). */
  close(): Promise<void> {
    return this.spool.close();
  }

  /**
   * The workspace a request works in: `workspaceId` if the key may reach it, else (when omitted)
   * the caller's default workspace: its own for an inference key, the organization's default
   * for a management key.
   * @throws NotFoundError for an unknown or unreachable workspace
   */
  async scopeFor(key: ApiKeyRecord, workspaceId: string | undefined): Promise<repo.FileScope> {
    if (workspaceId === undefined && !key.isManagement) return { orgId: key.orgId, workspaceId: key.workspaceId };
    const ws =
      workspaceId === undefined
        ? await findDefaultWorkspace(this.db, key.orgId)
        : await findWorkspace(this.db, key.orgId, workspaceId);
    if (!ws || (!key.isManagement && ws.id !== key.workspaceId)) throw new NotFoundError();
    return { orgId: key.orgId, workspaceId: ws.id };
  }

  /**
   * Receive the upload in `req` and store it, in two stages. First the body is spooled to disk
   * (checked on the way: size, type, a valid form) holding only the organization's own slot;
   * then, once complete, it is written with its metadata row in one transaction, at most
   * `maxConcurrentUploads` at a time. Any failure leaves nothing behind, and the slot and the
   * spool file are given back on every path.
   */
  async upload(key: ApiKeyRecord, workspaceId: string | undefined, req: Request): Promise<FileRecord> {
    const slot = this.slots.acquire(key.orgId);
    if (!slot) {
      discardBody(req);
      this.metrics.fileUploads.inc({ outcome: 'busy' });
      throw new RateLimitError(1, {
        reason: 'too many uploads in progress for this organization',
        limit: this.slots.perOrg,
      });
    }
    // Also given back when the exchange ends (answered, or its connection gone), whatever is still
    // running: a lost connection can never keep the slot.
    req.res?.once('close', slot.release);
    try {
      const scope = await this.scopeFor(key, workspaceId);
      const upload = await this.receive(req);
      const file = await this.store(scope, upload).finally(() => upload.spooled.dispose());
      this.metrics.fileUploads.inc({ outcome: 'stored' });
      this.metrics.fileBytes.inc({ direction: 'in' }, file.sizeBytes);
      return file;
    } catch (err) {
      const status = err instanceof GatewayError ? err.status : 500;
      const busy = err instanceof GatewayError && err.metadata?.reason === SPOOL_FULL;
      this.metrics.fileUploads.inc({
        outcome: busy ? 'busy' : status === 413 ? 'too_large' : status < 500 ? 'rejected' : 'failed',
      });
      throw err;
    } finally {
      slot.release();
    }
  }

  /** Stage one: the whole form parsed and valid, its file spooled; no database work. */
  private async receive(req: Request): Promise<SpooledUpload> {
    const { maxBytes, uploadIdleTimeoutMs: idleTimeoutMs, uploadDeadlineMs: deadlineMs } = this.options;
    const stage = this.metrics.fileUploadsInProgress.labels({ stage: 'receiving' });
    stage.inc();
    try {
      return await receiveFile(req, { maxBytes, idleTimeoutMs, deadlineMs }, async (incoming) => {
        const filename = cleanFilename(incoming.filename);
        const facts: UploadFacts = { mediaType: null, sizeBytes: 0 };
        const spooled = await this.spool.write(inspectUpload(incoming.stream, maxBytes, filename, facts));
        await incoming.formComplete.catch(async (err: unknown) => {
          await spooled.dispose();
          throw err;
        });
        return { spooled, filename, mediaType: facts.mediaType as string };
      });
    } finally {
      stage.dec();
    }
  }

  /** Stage two: content and metadata in one transaction, from the spool file (database speed, never the client's). */
  private async store(scope: repo.FileScope, upload: SpooledUpload): Promise<FileRecord> {
    const stage = this.metrics.fileUploadsInProgress.labels({ stage: 'storing' });
    stage.inc();
    try {
      return await this.storing(() =>
        this.db.transaction(async (tx) => {
          const id = newFileId();
          await this.storage.put(tx, id, upload.spooled.read());
          // Share-lock the live workspace until commit: a workspace deleted meanwhile makes this
          // a 404 (nothing stored); one deleted after waits for this file and deletes it too.
          if (!(await lockLiveWorkspace(tx, scope.orgId, scope.workspaceId))) throw new NotFoundError();
          return repo.insertFile(tx, {
            ...scope,
            id,
            filename: upload.filename,
            mimeType: upload.mediaType,
            sizeBytes: upload.spooled.size,
          });
        }),
      );
    } finally {
      stage.dec();
    }
  }

  /**
   * One page of the workspace's files, oldest first; `hasMore` tells whether a cursor follows.
   * The page starts after the position given by at most one of `cursor`, `after` or `after_id`.
   */
  async list(key: ApiKeyRecord, q: ListFilesQuery): Promise<{ files: FileRecord[]; cursor: string | null }> {
    if (q.before_id !== undefined) {
      throw new ValidationError(
        [{ path: 'query.before_id', message: 'is not supported: files are listed forward only, oldest first' }],
        'before_id is not supported: files are listed forward only (order=asc); page on with cursor, after or after_id',
      );
    }
    const given = (['cursor', 'after', 'after_id'] as const).filter((name) => q[name] !== undefined);
    if (given.length > 1) {
      throw new ValidationError(
        given.map((name) => ({ path: `query.${name}`, message: `only one of ${given.join(', ')} may be given` })),
      );
    }
    const start = given[0];
    const scope = await this.scopeFor(key, q.workspace_id);
    const seal = await this.cursorSeal();
    const afterSeq =
      start === 'after' || start === 'after_id'
        ? await this.positionOf(scope, start, q[start] as string)
        : start === 'cursor'
          ? seal.open(scope, q.cursor as string)
          : null;
    const rows = await repo.listFiles(this.db, scope, afterSeq, q.limit + 1);
    const files = rows.slice(0, q.limit);
    const last = files[files.length - 1];
    return { files, cursor: rows.length > q.limit && last ? seal.seal(scope, last.seq) : null };
  }

  private cursorSeal(): Promise<CursorSeal> {
    this.seal ??= loadCursorSeal(this.db).catch((err: unknown) => {
      this.seal = undefined;
      throw err;
    });
    return this.seal;
  }

  /**
   * The listing position of the file an `after`/`after_id` cursor names. The file must be in the
   * workspace listed; anything else is a bad cursor (400), like an opaque cursor we never issued.
   */
  private async positionOf(scope: repo.FileScope, param: 'after' | 'after_id', id: string): Promise<string> {
    const file = await repo.findFile(this.db, scope, id);
    if (!file)
      throw new ValidationError([{ path: `query.${param}`, message: 'is not the id of a file in this workspace' }]);
    return file.seq;
  }

  /** A file's metadata, or 404 (also for an id that is not in our format: no such file exists). */
  async get(key: ApiKeyRecord, id: string, workspaceId: string | undefined): Promise<FileRecord> {
    const scope = await this.scopeFor(key, workspaceId);
    const file = await repo.findFile(this.db, scope, id);
    if (!file) throw new NotFoundError();
    return file;
  }

  /**
   * A file's bytes, chunk by chunk. If the content changes under the reader (the file is
   * deleted mid-download), the stream fails rather than end short, so the response is cut and
   * the client never mistakes a truncated body for the file.
   */
  async content(key: ApiKeyRecord, id: string, workspaceId: string | undefined): Promise<FileContent> {
    const file = await this.get(key, id, workspaceId);
    const { storage, metrics } = this;
    async function* body(): AsyncIterable<Buffer> {
      let sent = 0;
      for await (const chunk of storage.read(file.id)) {
        sent += chunk.length;
        if (sent > file.sizeBytes) break;
        metrics.fileBytes.inc({ direction: 'out' }, chunk.length);
        yield chunk;
      }
      if (sent !== file.sizeBytes) throw new Error(`file ${file.id}: stored content does not match its size`);
    }
    return { file, body: body() };
  }

  /**
   * Delete a file: metadata and content in one transaction. Of concurrent deletes exactly one
   * succeeds; an unknown, already deleted or unreachable file is a 404 and nothing is deleted.
   */
  async delete(key: ApiKeyRecord, id: string, workspaceId: string | undefined): Promise<void> {
    const scope = await this.scopeFor(key, workspaceId);
    await this.db.transaction(async (tx) => {
      if (!(await repo.deleteFile(tx, scope, id))) throw new NotFoundError();
      await this.storage.delete(tx, [id]);
    });
  }

  /**
   * Delete every file of a workspace, metadata and content, inside the caller's transaction:
   * the workspace delete, so a deleted workspace leaves no unreachable files behind.
   */
  async purgeWorkspace(tx: Queryable, scope: repo.FileScope): Promise<void> {
    const ids = await repo.deleteWorkspaceFiles(tx, scope);
    await this.storage.delete(tx, ids);
  }
}

/**
 * The files resource: upload (streamed into storage inside one transaction with the metadata
 * row), list, read, download and delete, each confined to one workspace the calling key may
 * reach. An inference key reaches only its own workspace; a management key reaches every
 * workspace of its organization. Anything else, including another organization's file, is a 404,
 * so a key can never learn that a file exists elsewhere.
 * @module
 */
import type { Request } from 'express';
import { GatewayError, NotFoundError, RateLimitError, ServiceUnavailableError, ValidationError } from '../errors';
import type { ApiKeyRecord } from '../keys/types';
import type { Metrics } from '../observability/metrics';
import type { Database, Queryable } from '../store/db';
import { findDefaultWorkspace, findWorkspace, lockLiveWorkspace } from '../workspaces/repository';
import { inspectUpload, type UploadFacts } from './inspect';
import { discardBody, receiveFile } from './multipart';
import * as repo from './repository';
import type { FileRecord, FileStorage } from './types';
import { newFileId } from './wire';
import { loadCursorSeal, type CursorSeal } from './cursor';

/** Validated query of `GET /files` (`provider` is refused before this). */
export interface ListFilesQuery {
  limit: number;
  /** Opaque cursor of a previous page. */
  cursor?: string;
  /** OpenAI-style forward cursor: the id of the file to list after. */
  after?: string;
  /** Anthropic-style forward cursor: the id of the file to list after. */
  after_id?: string;
  /** Anthropic-style reverse cursor: refused, listings run forward only (as on the hosted storage). */
  before_id?: string;
  workspace_id?: string;
}

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
   * Uploads this replica runs at once. Each holds a database connection (its transaction) for as
   * long as the client takes to send the file, so slow clients must not be able to take the
   * whole pool; beyond the cap an upload is refused with 503 and `Retry-After`.
   */
  maxConcurrentUploads: number;
  /** Uploads one organization runs at once on this replica (below the total); beyond it, 429 with `Retry-After`. */
  maxConcurrentUploadsPerOrg: number;
  /** An upload sending nothing for this long is cut with 408. */
  uploadIdleTimeoutMs: number;
  /** An upload not complete within this is cut with 408. */
  uploadDeadlineMs: number;
}

const MAX_FILENAME = 255;

/** Strip control characters and cap the length; the name is a label only. */
function cleanFilename(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const name = raw.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, MAX_FILENAME);
  return name === '' ? 'file' : name;
}

/** Files operations over one database and one content store. */
export class FileService {
  /** Uploads in progress on this replica. */
  private uploading = 0;
  /** Uploads in progress on this replica, per organization (entries removed at zero). */
  private readonly uploadingByOrg = new Map<string, number>();
  /** The cursor key, read from the database on first use. */
  private seal: Promise<CursorSeal> | undefined;

  constructor(
    private readonly db: Database,
    private readonly storage: FileStorage,
    private readonly metrics: Metrics,
    private readonly options: FileServiceOptions,
  ) {}

  /**
   * The workspace a request works in: `workspaceId` if the key may reach it, else (when omitted)
   * the caller's default workspace: its own for an inference key, the organization's default
   * for a management key.
   * @throws NotFoundError for an unknown or unreachable workspace
   */
  async scopeFor(key: ApiKeyRecord, workspaceId: string | undefined): Promise<repo.FileScope> {
    if (workspaceId === undefined && !key.isManagement) return { orgId: key.orgId, workspaceId: key.workspaceId };
    const ws = workspaceId === undefined ? await findDefaultWorkspace(this.db, key.orgId) : await findWorkspace(this.db, key.orgId, workspaceId);
    if (!ws || (!key.isManagement && ws.id !== key.workspaceId)) throw new NotFoundError();
    return { orgId: key.orgId, workspaceId: ws.id };
  }

  /**
   * Receive the upload in `req` and store it. Content and metadata are written in one
   * transaction, committed only when the whole form turned out valid; any failure (too large,
   * empty, unsupported, malformed, client gone) leaves nothing behind.
   */
  async upload(key: ApiKeyRecord, workspaceId: string | undefined, req: Request): Promise<FileRecord> {
    // Checked before any database work: on PGlite a running upload holds the only connection.
    // The organization's own cap first, so one tenant's slow uploads never take every slot.
    const { orgId } = key;
    const ofOrg = this.uploadingByOrg.get(orgId) ?? 0;
    if (ofOrg >= this.options.maxConcurrentUploadsPerOrg) {
      discardBody(req);
      this.metrics.fileUploads.inc({ outcome: 'busy' });
      throw new RateLimitError(1, { reason: 'too many uploads in progress for this organization', limit: this.options.maxConcurrentUploadsPerOrg });
    }
    if (this.uploading >= this.options.maxConcurrentUploads) {
      discardBody(req);
      this.metrics.fileUploads.inc({ outcome: 'busy' });
      throw new ServiceUnavailableError({ reason: 'too many uploads in progress on this replica' }, 1);
    }
    this.uploading++;
    this.uploadingByOrg.set(orgId, ofOrg + 1);
    try {
      const scope = await this.scopeFor(key, workspaceId);
      const limits = { maxBytes: this.options.maxBytes, idleTimeoutMs: this.options.uploadIdleTimeoutMs, deadlineMs: this.options.uploadDeadlineMs };
      const file = await receiveFile(req, limits, (incoming) =>
        this.db.transaction(async (tx) => {
          const id = newFileId();
          const filename = cleanFilename(incoming.filename);
          const facts: UploadFacts = { mediaType: null, sizeBytes: 0 };
          await this.storage.put(tx, id, inspectUpload(incoming.stream, this.options.maxBytes, filename, facts));
          await incoming.formComplete;
          // Share-lock the live workspace until commit: a workspace deleted meanwhile makes this
          // a 404 (nothing stored); one deleted after waits for this file and deletes it too.
          if (!(await lockLiveWorkspace(tx, scope.orgId, scope.workspaceId))) throw new NotFoundError();
          return repo.insertFile(tx, { ...scope, id, filename, mimeType: facts.mediaType as string, sizeBytes: facts.sizeBytes });
        }),
      );
      this.metrics.fileUploads.inc({ outcome: 'stored' });
      this.metrics.fileBytes.inc({ direction: 'in' }, file.sizeBytes);
      return file;
    } catch (err) {
      const status = err instanceof GatewayError ? err.status : 500;
      this.metrics.fileUploads.inc({ outcome: status === 413 ? 'too_large' : status < 500 ? 'rejected' : 'failed' });
      throw err;
    } finally {
      this.uploading--;
      const left = (this.uploadingByOrg.get(orgId) ?? 1) - 1;
      if (left > 0) this.uploadingByOrg.set(orgId, left);
      else this.uploadingByOrg.delete(orgId);
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
      throw new ValidationError(given.map((name) => ({ path: `query.${name}`, message: `only one of ${given.join(', ')} may be given` })));
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
    if (!file) throw new ValidationError([{ path: `query.${param}`, message: 'is not the id of a file in this workspace' }]);
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

/**
 * `/files` (any key kind): thin handlers over {@link FileService}. Uploads are read straight
 * from the request stream (the JSON body parser ignores multipart bodies); downloads are
 * streamed chunk by chunk with an exact `Content-Length`.
 * @module
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import type { FileService } from '../files/service';
import { contentDisposition, toWireDeleted, toWireFile, toWirePage } from '../files/wire';
import { refuseProviderFiles } from '../files/provider';

const OCTET_STREAM = 'application/octet-stream';

/**
 * The download's Content-Type: the sniffed type (text with its charset), unless the client asks
 * for raw bytes specifically (`Accept: application/octet-stream`, as the official SDK's
 * `files.download` does, which rejects any other type). An Accept matching neither still gets
 * the file rather than a 406.
 */
function downloadType(req: Request, mimeType: string): string {
  if (req.accepts([mimeType, OCTET_STREAM]) === OCTET_STREAM && mimeType !== OCTET_STREAM) return OCTET_STREAM;
  return mimeType.startsWith('text/') ? `${mimeType}; charset=utf-8` : mimeType;
}

/** Register the files routes. */
export function registerFileRoutes(api: ApiRouter, deps: Pick<AppDeps, 'files'>): void {
  const files: FileService = deps.files;
  // `file_id` is not validated: an id that is not in our format names no file, so the service
  // answers 404 exactly as for an unknown one (the spec lists no 400 on these routes).
  const scoped = [validate({ query: 'files.scope.query' }), refuseProviderFiles];
  const idOf = (req: Request) => String(req.params.file_id);
  const wsOf = (req: Request) => validated(req, 'files.scope.query').workspace_id;

  api.add('post', '/files', ...scoped, async function uploadFile(req: Request, res: Response) {
    const file = await files.upload(currentKey(req), wsOf(req), req);
    res.json(toWireFile(file));
  });

  api.add(
    'get',
    '/files',
    validate({ query: 'files.list.query' }),
    refuseProviderFiles,
    async function listFiles(req: Request, res: Response) {
      const page = await files.list(currentKey(req), validated(req, 'files.list.query'));
      res.json(toWirePage(page.files, page.cursor));
    },
  );

  api.add('get', '/files/:file_id', ...scoped, async function getFile(req: Request, res: Response) {
    res.json(toWireFile(await files.get(currentKey(req), idOf(req), wsOf(req))));
  });

  api.add('get', '/files/:file_id/content', ...scoped, async function downloadFile(req: Request, res: Response) {
    const { file, body } = await files.content(currentKey(req), idOf(req), wsOf(req));
    res.setHeader('Content-Type', downloadType(req, file.mimeType));
    res.setHeader('Vary', 'Accept');
    res.setHeader('Content-Length', String(file.sizeBytes));
    res.setHeader('Content-Disposition', contentDisposition(file.filename));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // A failure after the headers went out cuts the connection (error handler), never a short 200;
    // a client that hangs up mid-download is not an error worth logging.
    await pipeline(Readable.from(body), res).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
    });
  });

  api.add('delete', '/files/:file_id', ...scoped, async function deleteFile(req: Request, res: Response) {
    await files.delete(currentKey(req), idOf(req), wsOf(req));
    res.json(toWireDeleted(idOf(req)));
  });
}

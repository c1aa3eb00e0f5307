/**
 * `receiveFile` when the client is already gone: a request aborted before the parser is
 * attached (the caller was awaiting the database) must fail at once, not wait forever for a body
 * that will never come (which would hold an upload slot for good).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { Request } from 'express';
import { receiveFile } from '../../src/files/multipart';
import { eventually } from '../helpers/eventually';
import { filePartHead, openMultipartUpload } from '../helpers/multipart-upload';

test('a request aborted before receiveFile is called rejects instead of hanging', async () => {
  let settled: 'stored' | 'rejected' | 'pending' = 'pending';
  let res: http.ServerResponse | undefined;
  const server = http.createServer((req, response) => {
    res = response;
    // Wait until the client has gone, then start reading, as an upload does after its lookups.
    req.once('close', () => {
      receiveFile(req as Request, { maxBytes: 1_000_000 }, async (file) => {
        for await (const chunk of file.stream) void chunk;
        return 'stored' as const;
      }).then(
        () => void (settled = 'stored'),
        () => void (settled = 'rejected'),
      );
    });
  });
  const arrived = once(server, 'request');
  const client = await openMultipartUpload(server, '/files', 1_000_000);
  try {
    client.write(`${filePartHead('slow.txt')}the first line\n`);
    await arrived; // the server has the request: the client goes while its handler waits
    client.destroy();
    await eventually(() => expect(settled).toBe('rejected'), { timeoutMs: 2000 });
  } finally {
    res?.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

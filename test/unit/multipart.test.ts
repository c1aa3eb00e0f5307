/**
 * `receiveFile` when the client is already gone: a request aborted before the parser is
 * attached (the caller was awaiting the database) must fail at once, not wait forever for a body
 * that will never come (which would hold an upload slot for good).
 */
import http from 'node:http';
import type { Request } from 'express';
import { receiveFile } from '../../src/files/multipart';
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
  const client = await openMultipartUpload(server, '/files', 1_000_000);
  try {
    client.write(`${filePartHead('slow.txt')}the first line\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.destroy();
    for (let waited = 0; settled === 'pending' && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe('rejected');
  } finally {
    res?.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

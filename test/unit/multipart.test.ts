/**
 * `receiveFile` when the client is already gone: a request aborted before the parser is
 * attached (the caller was awaiting the database) must fail at once, not wait forever for a body
 * that will never come (which would hold an upload slot for good).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { receiveFile } from '../../src/files/multipart';

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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = http.request({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      method: 'POST',
      path: '/files',
      headers: { 'content-type': 'multipart/form-data; boundary=b0undary', 'content-length': 1_000_000 },
    });
    client.on('error', () => undefined);
    client.write('--b0undary\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n\r\nthe first line\n');
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

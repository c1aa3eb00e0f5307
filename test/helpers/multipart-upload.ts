/**
 * A multipart upload the test controls byte by byte (to cut it midway): `server` is started on a
 * loopback port and a POST to `path` is opened, announcing `contentLength` bytes with boundary
 * `b0undary`. Connection errors after the cut are expected and ignored.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function openMultipartUpload(
  server: http.Server,
  path: string,
  contentLength: number,
  headers: Record<string, string> = {},
): Promise<http.ClientRequest> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const req = http.request({
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': 'multipart/form-data; boundary=b0undary', 'content-length': contentLength },
  });
  req.on('error', () => undefined);
  return req;
}

/** The head of the file part named `filename` in such an upload. */
export function filePartHead(filename: string): string {
  return `--b0undary\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
}

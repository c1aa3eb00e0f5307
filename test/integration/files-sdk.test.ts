/**
 * The official `@openrouter/sdk` (ESM, run in a child process) against a listening gateway:
 * upload, list with cursor paging, retrieve, download, delete and its 404/400 errors all parse
 * with the SDK's own schemas (the `_shape` discriminator, exact statuses, octet-stream download).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { openTestPglite, uniqueId } from '../helpers/services';
import { listenGateway, type ListeningGateway } from '../helpers/listening';
import { MemoryKv } from '../../src/kv/memory';

let gw: ListeningGateway;
beforeAll(async () => {
  gw = await listenGateway(await openTestPglite(), new MemoryKv(`t:${uniqueId()}:`));
});
afterAll(() => gw.server.shutdown('test'));

test('files upload, list, retrieve, download, delete through the SDK', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(__dirname, 'files-sdk.mjs'), gw.baseUrl, gw.mgmtKey],
    {
      timeout: 30000,
    },
  );
  const r = JSON.parse(stdout) as Record<string, { id?: string } | undefined>;
  expect(r.fatal).toBeUndefined();
  expect(r.uploaded).toMatchObject({
    shape: 'openrouter',
    type: 'file',
    filename: 'people.csv',
    mimeType: 'text/csv',
    sizeBytes: 22,
    downloadable: true,
  });
  expect(r.firstPage).toEqual({ ids: [r.uploaded?.id], hasMore: true, shape: 'openrouter' });
  expect(r.secondPage).toEqual({ ids: [r.secondId], hasMore: false });
  expect(r.retrieved).toEqual(r.uploaded);
  expect(r.downloaded).toBe('id,name\n1,alice\n2,bob\n');
  expect(r.deleted).toEqual({ shape: 'openrouter', id: r.uploaded?.id, type: 'file_deleted' });
  expect(r.deleteAgain).toMatchObject({ name: 'NotFoundResponseError', status: 404 });
  expect(r.empty).toMatchObject({ name: 'BadRequestResponseError', status: 400 });
});

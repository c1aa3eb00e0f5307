/**
 * The official `@openrouter/sdk` (ESM, run in a child process) against a listening gateway:
 * every API-key operation parses (exact status codes, required fields, literal `deleted: true`)
 * and errors map to the SDK's typed classes.
 */
import { openTestPglite, uniqueId } from '../helpers/services';
import { listenGateway, runClientScript, type ListeningGateway } from '../helpers/listening';
import { MemoryKv } from '../../src/kv/memory';

let gw: ListeningGateway;
beforeAll(async () => {
  gw = await listenGateway(await openTestPglite(), new MemoryKv(`t:${uniqueId()}:`));
});
afterAll(() => gw.server.shutdown('test'));

test('apiKeys create, list, get, update, getCurrentKeyMetadata, delete', async () => {
  const r = await runClientScript<Record<string, unknown>>('keys-sdk.mjs', [gw.baseUrl, gw.mgmtKey]);
  expect(r.fatal).toBeUndefined();
  const created = r.created as {
    hash: string;
    key: string;
    limit: number;
    externalUser: unknown;
    workspaceId: string;
    expiresAt: string;
  };
  expect(created.key).toMatch(/^sk-sy-v1-[0-9a-f]{64}$/);
  expect(created.limit).toBe(5);
  expect(created.externalUser).toBeNull();
  expect(created.workspaceId).toMatch(/^[0-9a-f-]{36}$/);
  expect(new Date(created.expiresAt).toISOString()).toBe('2099-01-01T00:00:00.000Z');
  expect(r.listedHashes).toContain(created.hash);
  expect(r.got).toEqual({ hash: created.hash, limitRemaining: 5 });
  expect(r.updated).toEqual({ name: 'renamed', limit: 7 });
  expect(r.current).toEqual({ isManagementKey: false, workspaceId: created.workspaceId, limit: 7 });
  expect(r.deleted).toBe(true);
  expect(r.deleteAgain).toMatchObject({ name: 'NotFoundResponseError', status: 404 });
  // The SDK declares no 403 for apiKeys.list, so it surfaces as its default error class.
  expect(r.forbidden).toMatchObject({ status: 403 });
});

/**
 * The official `@openrouter/sdk` (ESM, run in a child process) against a listening gateway:
 * workspace CRUD, bulk member add/remove/list and budget set/get/list/delete all parse (exact
 * status codes, every required Workspace/WorkspaceBudget/WorkspaceMember field, `deleted: true`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { openTestPglite, uniqueId } from '../helpers/services';
import { listenGateway, type ListeningGateway } from '../helpers/listening';
import { MemoryKv } from '../../src/kv/memory';
import { listOrgs, upsertOrgMember } from '../../src/orgs/repository';

let gw: ListeningGateway;
beforeAll(async () => {
  const db = await openTestPglite();
  gw = await listenGateway(db, new MemoryKv(`t:${uniqueId()}:`));
  const [org] = await listOrgs(db);
  await upsertOrgMember(db, org!.id, 'user_sdk', 'admin');
});
afterAll(() => gw.server.shutdown('test'));

test('workspaces, members and budgets through the SDK', async () => {
  const script = path.join(__dirname, 'workspaces-sdk.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, [script, gw.baseUrl, gw.mgmtKey, 'user_sdk'], {
    timeout: 30000,
  });
  const r = JSON.parse(stdout) as Record<string, unknown>;
  expect(r.fatal).toBeUndefined();
  expect(r.created).toMatchObject({
    name: 'SDK Team',
    slug: 'sdk-team',
    description: 'via sdk',
    defaultGuardrailId: expect.any(String),
    ioLoggingSamplingRate: 1,
  });
  expect(r.listed).toEqual({ slugs: ['default', 'sdk-team'], total: 2 });
  expect(r.got).toBe((r.created as { id: string }).id);
  expect(r.updated).toBe('Renamed');
  expect(r.added).toEqual({ count: 1, members: [{ userId: 'user_sdk', role: 'admin' }] });
  expect(r.members).toEqual({ total: 1, userIds: ['user_sdk'] });
  expect(r.removed).toBe(1);
  expect(r.set).toEqual({ limitUsd: 100, resetInterval: 'monthly', byok: true });
  expect(r.lifetime).toBe('lifetime');
  expect(r.budget).toBe(100);
  expect(r.budgets).toEqual(['monthly', 'lifetime']);
  expect(r.budgetDeleted).toBe(true);
  expect(r.missingBudget).toMatchObject({ status: 404 });
  expect(r.deleted).toBe(true);
  expect(r.missing).toMatchObject({ name: 'NotFoundResponseError', status: 404 });
});

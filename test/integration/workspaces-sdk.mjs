// Drives the official @openrouter/sdk workspace, member and budget operations against a running
// Switchyard (argv: serverURL, management key, an organization user id) and prints one JSON
// object with what each returned, for workspaces-sdk.test.ts to assert.
import { OpenRouter } from '@openrouter/sdk';

const [serverURL, mgmtKey, userId] = process.argv.slice(2);
const or = new OpenRouter({ apiKey: mgmtKey, serverURL, retryConfig: { strategy: 'none' } });
const out = {};
const errorOf = (e) => ({ name: e?.constructor?.name, status: e?.statusCode, message: e?.message?.slice(0, 200) });

try {
  const created = await or.workspaces.create({
    createWorkspaceRequest: { name: 'SDK Team', slug: 'sdk-team', description: 'via sdk' },
  });
  out.created = created.data;
  const listed = await or.workspaces.list({ offset: 0, limit: 50 });
  out.listed = { slugs: listed.result.data.map((w) => w.slug), total: listed.result.totalCount };
  out.got = (await or.workspaces.get({ id: 'sdk-team' })).data.id;
  out.updated = (
    await or.workspaces.update({ id: created.data.id, updateWorkspaceRequest: { name: 'Renamed' } })
  ).data.name;
  const added = await or.workspaces.bulkAddMembers({
    id: 'sdk-team',
    bulkAddWorkspaceMembersRequest: { userIds: [userId] },
  });
  out.added = { count: added.addedCount, members: added.data.map((m) => ({ userId: m.userId, role: m.role })) };
  const members = await or.workspaces.listMembers({ id: 'sdk-team' });
  out.members = { total: members.result.totalCount, userIds: members.result.data.map((m) => m.userId) };
  const removed = await or.workspaces.bulkRemoveMembers({
    id: 'sdk-team',
    bulkRemoveWorkspaceMembersRequest: { userIds: [userId] },
  });
  out.removed = removed.removedCount;
  const set = await or.workspaces.setBudget({
    workspaceRef: 'sdk-team',
    interval: 'monthly',
    upsertWorkspaceBudgetRequest: { limitUsd: 100, includeByokInBudgets: true },
  });
  out.set = { limitUsd: set.data.limitUsd, resetInterval: set.data.resetInterval, byok: set.includeByokInBudgets };
  const life = await or.workspaces.setBudget({
    workspaceRef: 'sdk-team',
    interval: 'lifetime',
    upsertWorkspaceBudgetRequest: { limitUsd: 500 },
  });
  out.lifetime = life.data.resetInterval;
  out.budget = (await or.workspaces.getBudget({ workspaceRef: created.data.id, interval: 'monthly' })).data.limitUsd;
  out.budgets = (await or.workspaces.listBudgets({ workspaceRef: 'sdk-team' })).data.map((b) => b.resetInterval);
  out.budgetDeleted = (await or.workspaces.deleteBudget({ workspaceRef: 'sdk-team', interval: 'monthly' })).deleted;
  try {
    await or.workspaces.getBudget({ workspaceRef: 'sdk-team', interval: 'monthly' });
    out.missingBudget = 'no error';
  } catch (e) {
    out.missingBudget = errorOf(e);
  }
  out.deleted = (await or.workspaces.delete({ id: 'sdk-team' })).deleted;
  try {
    await or.workspaces.get({ id: 'sdk-team' });
    out.missing = 'no error';
  } catch (e) {
    out.missing = errorOf(e);
  }
} catch (e) {
  out.fatal = { ...errorOf(e), raw: String(e?.rawValue ? JSON.stringify(e.rawValue).slice(0, 500) : (e?.cause ?? '')) };
}
process.stdout.write(JSON.stringify(out));

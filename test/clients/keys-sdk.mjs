// Drives the official @openrouter/sdk against a running Switchyard (argv: serverURL, management key)
// and prints one JSON object with what each operation returned, for keys-sdk.test.ts to assert.
import { OpenRouter } from '@openrouter/sdk';

const [serverURL, mgmtKey] = process.argv.slice(2);
const client = (apiKey) => new OpenRouter({ apiKey, serverURL, retryConfig: { strategy: 'none' } });
const or = client(mgmtKey);
const out = {};
const errorOf = (e) => ({ name: e?.constructor?.name, status: e?.statusCode, message: e?.message?.slice(0, 200) });

try {
  const created = await or.apiKeys.create({
    requestBody: { name: 'sdk key', limit: 5, limitReset: 'monthly', expiresAt: new Date('2099-01-01T00:00:00Z') },
  });
  out.created = {
    hash: created.data.hash,
    name: created.data.name,
    key: created.key,
    limit: created.data.limit,
    workspaceId: created.data.workspaceId,
    externalUser: created.data.externalUser,
    expiresAt: String(created.data.expiresAt),
  };
  const listed = await or.apiKeys.list({ includeDisabled: true, offset: 0 });
  out.listedHashes = listed.data.map((k) => k.hash);
  const got = await or.apiKeys.get({ hash: created.data.hash });
  out.got = { hash: got.data.hash, limitRemaining: got.data.limitRemaining };
  const updated = await or.apiKeys.update({
    hash: created.data.hash,
    requestBody: { name: 'renamed', disabled: false, limit: 7 },
  });
  out.updated = { name: updated.data.name, limit: updated.data.limit };
  const current = await client(created.key).apiKeys.getCurrentKeyMetadata();
  out.current = {
    isManagementKey: current.data.isManagementKey,
    workspaceId: current.data.workspaceId,
    limit: current.data.limit,
  };
  try {
    await client(created.key).apiKeys.list({});
    out.forbidden = 'no error';
  } catch (e) {
    out.forbidden = errorOf(e);
  }
  const deleted = await or.apiKeys.delete({ hash: created.data.hash });
  out.deleted = deleted.deleted;
  try {
    await or.apiKeys.delete({ hash: created.data.hash });
    out.deleteAgain = 'no error';
  } catch (e) {
    out.deleteAgain = errorOf(e);
  }
} catch (e) {
  out.fatal = { ...errorOf(e), raw: String(e?.rawValue ? JSON.stringify(e.rawValue).slice(0, 500) : (e?.cause ?? '')) };
}
process.stdout.write(JSON.stringify(out));

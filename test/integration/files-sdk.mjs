// Drives the official @openrouter/sdk files API against a running Switchyard (argv: serverURL,
// API key) and prints one JSON object with what each operation returned, for files-sdk.test.ts.
/* global Response, File */
import { OpenRouter } from '@openrouter/sdk';

const [serverURL, apiKey] = process.argv.slice(2);
const or = new OpenRouter({ apiKey, serverURL, retryConfig: { strategy: 'none' } });
const out = {};
const errorOf = (e) => ({ name: e?.constructor?.name, status: e?.statusCode, message: e?.message?.slice(0, 200) });
const bytesOf = async (stream) => Buffer.from(await new Response(stream).arrayBuffer());

try {
  const text = 'id,name\n1,alice\n2,bob\n';
  const uploaded = await or.files.upload({
    requestBody: { file: new File([text], 'people.csv', { type: 'text/plain' }) },
  });
  out.uploaded = uploaded;
  const second = await or.files.upload({ requestBody: { file: new File(['%PDF-1.4\n%...\n'], 'b.pdf') } });
  const first = await or.files.list({ limit: 1 });
  out.firstPage = { ids: first.result.data.map((f) => f.id), hasMore: first.result.hasMore, shape: first.result.shape };
  const next = await first.next();
  out.secondPage = next ? { ids: next.result.data.map((f) => f.id), hasMore: next.result.hasMore } : null;
  out.secondId = second.id;
  out.retrieved = await or.files.retrieve({ fileId: uploaded.id });
  out.downloaded = (await bytesOf(await or.files.download({ fileId: uploaded.id }))).toString();
  out.deleted = await or.files.delete({ fileId: uploaded.id });
  try {
    await or.files.delete({ fileId: uploaded.id });
    out.deleteAgain = 'no error';
  } catch (e) {
    out.deleteAgain = errorOf(e);
  }
  try {
    await or.files.upload({ requestBody: { file: new File([], 'empty.txt') } });
    out.empty = 'no error';
  } catch (e) {
    out.empty = errorOf(e);
  }
} catch (e) {
  out.fatal = { ...errorOf(e), raw: String(e?.rawValue ? JSON.stringify(e.rawValue).slice(0, 500) : (e?.cause ?? '')) };
}
process.stdout.write(JSON.stringify(out));

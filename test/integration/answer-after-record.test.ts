/**
 * `usage.answerAfterRecord`: with it on (the default) a 200 from POST /embeddings is sent only
 * once its usage record is durable, so a replica killed right after answering never leaves a
 * client holding an answer without a record (the replicas test kills one under load); off, the
 * answer goes at once and the record follows.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { UsageEvent, UsageRecorder } from '../../src/usage/types';
import { loadConfig } from '../../src/config';
import { until as pollUntil } from '../helpers/eventually';
import { tempDir } from '../helpers/temp-dir';

/** For the harness's build options: its recorder, made to hold every record (in `held`) until released. */
function gateRecords(held: Array<{ event: UsageEvent; release: () => void }>) {
  return (inner: UsageRecorder): UsageRecorder => ({
    record: (event) => new Promise<void>((resolve) => held.push({ event, release: resolve })),
    pending: () => inner.pending(),
    flush: () => inner.flush(),
    close: () => inner.close(),
  });
}

const until = (condition: () => boolean) => pollUntil('the condition', condition);

test('on by default; usage.answerAfterRecord: false in the SWITCHYARD_CONFIG file turns it off', () => {
  expect(loadConfig({}).usage.answerAfterRecord).toBe(true);
  const file = path.join(tempDir('sy-aar-'), 'site.yaml');
  writeFileSync(file, 'usage:\n  answerAfterRecord: false\n');
  expect(loadConfig({ SWITCHYARD_CONFIG: file }).usage.answerAfterRecord).toBe(false);
});

describe.each([true, false])('usage.answerAfterRecord = %s', (answerAfterRecord) => {
  let h: GatewayHarness;
  const held: Array<{ event: UsageEvent; release: () => void }> = [];
  beforeAll(async () => {
    h = await startGatewayHarness({
      // A loaded CI machine can take longer than the harness's fast attempt timeout on a cold
      // first request; a timed-out attempt would answer (524) with no record to wait for.
      overrides: { usage: { answerAfterRecord }, upstream: { attemptTimeoutMs: 10_000, deadlineMs: 20_000 } },
      wrap: { recorder: gateRecords(held) },
    });
  });
  afterAll(() => h.close());

  test(answerAfterRecord ? 'the 200 waits for its usage record' : 'the 200 goes before its usage record', async () => {
    let answered = false;
    const response = h.post({ model: 'openai/text-embedding-3-small', input: 'hello' }).then((res) => {
      answered = true;
      return res;
    });
    await until(() => held.length === 1 || answered);
    if (answerAfterRecord) {
      // The record is under way and unfinished: give the route every chance to answer anyway
      // (an answer that does not come has no event to wait on, so this one wait stays).
      await new Promise((r) => setTimeout(r, 100));
      if (answered) expect((await response).status).toBe(200); // an early error says what it was
      expect(answered).toBe(false);
      held[0]!.release();
    } else {
      await until(() => answered);
      expect(held).toHaveLength(1); // answered while its record is still held
    }
    const res = await response;
    expect(res.status).toBe(200);
    expect(held[0]!.event.id).toBe(res.body.id);
    for (const record of held) record.release();
  });
});

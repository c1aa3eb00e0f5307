/**
 * A gateway wired to a fleet of fake upstreams (every wire format, chat and embeddings), with an
 * inference key, short upstream timeouts and a controllable clock for the circuit breaker. Used by
 * the chat and embeddings integration and client tests.
 */
import type { ProviderEnv } from '../../src/config/env';
import request from 'supertest';
import type { ConfigOverrides } from '../../src/config';
import type { Kv } from '../../src/kv/kv';
import type { Database } from '../../src/store/db';
import type { UsageEvent, UsageRecorder } from '../../src/usage/types';
import {
  bearer,
  createInferenceKey,
  createTestGateway,
  type GatewayOptions,
  type TestGateway,
} from '../helpers/gateway';
import { openTestPglite, KVS } from '../helpers/services';
import { listenApp } from '../helpers/listening';
import { startFakeFleet, type FakeFleet } from './providers';

/** Upstream settings small enough to exercise timeouts quickly. */
export const FAST_UPSTREAM = {
  attemptTimeoutMs: 400,
  deadlineMs: 3000,
  connectionsPerOrigin: 16,
  keepAliveTimeoutMs: 1000,
};

/** A gateway over fakes, with its stores and a recorded list of usage events. */
export interface GatewayHarness {
  gw: TestGateway;
  db: Database;
  kv: Kv;
  fleet: FakeFleet;
  /** Inference key secret. */
  key: string;
  /** Usage events recorded (the real recorder still runs; a `wrap.recorder` is handed the recorder that lists them). */
  events: UsageEvent[];
  /** The breaker clock (ms); advance it to pass cooldowns. */
  clock: { now: number };
  /** POST /embeddings with the harness's key. */
  post(body: unknown, headers?: Record<string, string>): request.Test;
  /** With `listen`: the gateway's base URL on a loopback port (ends in /api/v1), for clients in child processes. */
  baseUrl?: string;
  close(): Promise<void>;
}

/** The fleet's provider settings with `extras` joined per provider. */
function withExtras(
  providers: Record<string, ProviderEnv | undefined>,
  extras: Record<string, ProviderEnv> = {},
): Record<string, ProviderEnv | undefined> {
  const out = { ...providers };
  for (const [name, more] of Object.entries(extras)) out[name] = { ...out[name], ...more };
  return out;
}

/** A recorder that lists each event in `events` and records it with `inner`. */
function listingRecorder(inner: UsageRecorder, events: UsageEvent[]): UsageRecorder {
  return {
    record: async (e) => {
      events.push(e);
      await inner.record(e);
    },
    pending: () => inner.pending(),
    flush: () => inner.flush(),
    close: () => inner.close(),
  };
}

/**
 * Start fakes, stores and a gateway. `logger`, `metrics` and `wrap` go to the gateway's deps when
 * they are built (see `GatewayOptions`); a `wrap.recorder` wraps the harness's listing recorder.
 */
export async function startGatewayHarness(
  opts: {
    kv?: Kv;
    overrides?: ConfigOverrides;
    listen?: boolean;
    /** Provider settings joined to the fake's base URL and key (a key pool, an API version), where `overrides.providers` replaces them. */
    providerExtras?: Record<string, ProviderEnv>;
  } & GatewayOptions = {},
): Promise<GatewayHarness> {
  const fleet = await startFakeFleet();
  const db = await openTestPglite();
  const kv = opts.kv ?? (await KVS[0]!.open());
  const clock = { now: Date.UTC(2026, 10, 1) };
  const overrides: ConfigOverrides = {
    ...opts.overrides,
    providers: { ...withExtras(fleet.overrides.providers ?? {}, opts.providerExtras), ...opts.overrides?.providers },
    upstream: { ...FAST_UPSTREAM, ...opts.overrides?.upstream },
    breaker: { failureThreshold: 3, cooldownMs: 10_000, ...opts.overrides?.breaker },
  };
  const events: UsageEvent[] = [];
  const recorder = (real: UsageRecorder): UsageRecorder => {
    const listing = listingRecorder(real, events);
    return opts.wrap?.recorder?.(listing) ?? listing;
  };
  const gw = await createTestGateway(db, kv, overrides, () => clock.now, {
    logger: opts.logger,
    metrics: opts.metrics,
    wrap: { ...opts.wrap, recorder },
  });
  const { secret } = await createInferenceKey(gw);
  const listening = opts.listen ? await listenApp(gw.app) : undefined;
  return {
    gw,
    db,
    kv,
    fleet,
    key: secret,
    events,
    clock,
    post: (body, headers = {}) =>
      request(gw.app)
        .post('/api/v1/embeddings')
        .set('Authorization', bearer(secret))
        .set(headers)
        .send(body as object),
    baseUrl: listening?.baseUrl,
    close: async () => {
      await listening?.close();
      await gw.deps.routing.close();
      await gw.deps.embeddingsCache.close();
      await fleet.closeAll();
      await gw.deps.recorder.close().catch(() => undefined);
      await kv.close();
      await db.close();
    },
  };
}

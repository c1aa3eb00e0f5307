/**
 * The benchmarks' interleaving (bench/lib/rounds.js): targets take turns in alternating order, and
 * a 32-connection round pools each target's turns against real HTTP servers on loopback, waiting
 * before the round and after each turn of a target with a metrics endpoint until its usage
 * backlog is written.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuTimes } from '../lib/children';
import { cpuDuring, cpuLine, inTurns, maxRound, pooledTurns } from '../lib/rounds';

interface Served {
  url: string;
  hits: () => number;
  close: () => Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Served> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
};

describe('bench rounds', () => {
  it('runs every target once a turn, reversing the order every other turn', async () => {
    const seen: string[] = [];
    await inTurns(['a', 'b', 'c'], 3, (t: string) => {
      seen.push(t);
      return Promise.resolve();
    });
    expect(seen.join('')).toBe('abccbaabc');
  });

  it('measures the CPU a load spends in the process, its user part and its main thread', async () => {
    // Spin until this (main) thread has used 300 ms of CPU, by /proc's own count: not of the clock (a
    // busy machine may give it less), nor of the process (another thread of this Jest worker, a
    // collector or a worker an earlier file left, may take a share of that meanwhile).
    const threadSeconds = (): number => {
      const t = cpuTimes(process.pid, process.pid);
      if (t === null) throw new Error('no /proc');
      return t.user + t.system;
    };
    const spin = (seconds: number): number => {
      const start = threadSeconds();
      let x = 0;
      for (;;) {
        for (let i = 0; i < 1_000_000; i++) x = (x + i) % 1_000_003;
        if (threadSeconds() - start >= seconds) return x;
      }
    };
    const spent = await cpuDuring({ child: { pid: process.pid } }, () => Promise.resolve(spin(0.3)));
    if (spent.seconds === null || spent.userSeconds === null || spent.mainThreadSeconds === null)
      throw new Error('no /proc');
    // /proc counts in 10 ms ticks. The spin is this (main) thread's JavaScript: nearly all user time.
    expect(spent.mainThreadSeconds).toBeGreaterThanOrEqual(0.29);
    expect(spent.seconds).toBeGreaterThanOrEqual(0.28);
    expect(spent.userSeconds).toBeGreaterThanOrEqual(0.25);
    // The thread's and the process's figures are read at slightly different instants, each of the
    // two readings (before and after) may fall on either side of a tick: two ticks apart at most.
    expect(spent.mainThreadSeconds).toBeLessThanOrEqual(spent.seconds + 0.02);
  });

  it('pools the CPU split over turns, and a turn without figures leaves the target without them', async () => {
    const turn = (requests: number) => ({ requests, seconds: 1, errors: 0, non2xx: 0, latencies: [1] });
    const pooled = await pooledTurns(['a', 'b'], 2, (t: string) =>
      Promise.resolve(
        t === 'a'
          ? { result: turn(1000), seconds: 0.5, userSeconds: 0.4, mainThreadSeconds: 0.45 }
          : { result: turn(10), seconds: null },
      ),
    );
    expect(pooled.get('a')?.figures).toMatchObject({
      requests: 2000,
      cpuMsPerRequest: 0.5,
      userMsPerRequest: 0.4,
      mainThreadMsPerRequest: 0.45,
    });
    expect(pooled.get('b')?.figures).toMatchObject({
      cpuMsPerRequest: null,
      userMsPerRequest: null,
      mainThreadMsPerRequest: null,
    });
    expect(
      cpuLine([
        { name: 'floor', cpuMsPerRequest: 0.5, userMsPerRequest: 0.4, mainThreadMsPerRequest: 0.45 },
        { name: 'gateway' },
      ]),
    ).toBe('CPU ms per request (user; main thread): floor 0.500 (0.400; 0.450), gateway - (-; -)');
  });

  it('pools each target over its turns and settles a gateway before the round and after each of its turns', async () => {
    const floor = await serve(ok);
    const gateway = await serve(ok);
    const depths = [2, 0, 0];
    const metrics = await serve((_req, res) => {
      res.end(`# HELP x\nswitchyard_usage_queue_depth ${depths.shift() ?? 0}\n`);
    });
    const handle = { child: { pid: process.pid } };
    const floorTarget = { url: `${floor.url}/x`, headers: {}, body: '{}', handle };
    const gatewayTarget = {
      url: `${gateway.url}/x`,
      headers: {},
      body: '{}',
      handle: { ...handle, metricsUrl: `${metrics.url}/metrics` },
    };
    try {
      const pooled = await maxRound([floorTarget, gatewayTarget], { connections: 2, duration: 2, slices: 2 });
      for (const [t, served] of [
        [floorTarget, floor],
        [gatewayTarget, gateway],
      ] as const) {
        const r = pooled.get(t);
        if (!r) throw new Error('a target without figures');
        expect(r.errors + r.non2xx).toBe(0);
        expect(r.requests).toBeGreaterThan(0);
        // Every answer counted once, over both turns (autocannon may leave a request in flight at a turn's end).
        expect(served.hits() - r.requests).toBeGreaterThanOrEqual(0);
        expect(served.hits() - r.requests).toBeLessThanOrEqual(2 * 2);
        // Requests/s over the turns' own time (two 1 s turns).
        expect(r.rps).toBeGreaterThan(r.requests / 3);
        expect(r.rps).toBeLessThan(r.requests / 1.5);
        expect(r.p50).not.toBeNull();
        expect(r.p50 as number).toBeLessThanOrEqual(r.p99 as number);
        // The split: user time is part of the whole, and so is the main thread's (within one 10 ms
        // tick of /proc's accounting, since the two are read one after the other).
        const [cpu, user, main] = [r.cpuMsPerRequest, r.userMsPerRequest, r.mainThreadMsPerRequest];
        if (cpu === null || user === null || main === null) throw new Error('no CPU figures on Linux');
        expect(user).toBeGreaterThanOrEqual(0);
        expect(user).toBeLessThanOrEqual(cpu);
        expect(main).toBeLessThanOrEqual(cpu + 10 / r.requests);
      }
      // Before the round, waiting out a backlog of 2 (two scrapes), then after each of the two
      // gateway turns (one each): four; the floor has no metrics endpoint and is never waited on.
      expect(metrics.hits()).toBe(4);
    } finally {
      await Promise.all([floor.close(), gateway.close(), metrics.close()]);
    }
  }, 30_000);
});

/**
 * The in-process twin's data: string values and hashes with optional expiry, mirroring the
 * handful of Redis semantics our scripts use (missing = nil, PX expiry, INCRBY on strings).
 * @module
 */

interface Entry {
  value: string | Map<string, string>;
  expiresAt: number | undefined;
}

/**
 * Redis-like key space for the twin. Expired entries vanish on access and on {@link sweep}, which
 * the twin runs on a timer: keys named by period (a day's budget counter, a rate-limit window) are
 * never read again once their period is over, and would otherwise stay forever.
 */
export class MemoryData {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** GET: the string value or null. */
  get(key: string): string | null {
    const v = this.live(key)?.value;
    return typeof v === 'string' ? v : null;
  }

  /** SET with optional PX; clears any previous expiry like Redis does. */
  set(key: string, value: string, ttlMs?: number): void {
    this.entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : this.now() + ttlMs });
  }

  /** INCRBYFLOAT semantics (INCRBY for integers): creates the key at 0, keeps its expiry. */
  incrBy(key: string, by: number): number {
    const entry = this.live(key);
    const next = Number(typeof entry?.value === 'string' ? entry.value : 0) + by;
    this.entries.set(key, { value: String(next), expiresAt: entry?.expiresAt });
    return next;
  }

  /** HGET. */
  hget(key: string, field: string): string | null {
    const v = this.live(key)?.value;
    return v instanceof Map ? (v.get(field) ?? null) : null;
  }

  /** HSET of one field, creating the hash if needed. */
  hset(key: string, field: string, value: string): void {
    const entry = this.live(key);
    const map = entry?.value instanceof Map ? entry.value : new Map<string, string>();
    map.set(field, value);
    this.entries.set(key, { value: map, expiresAt: entry?.expiresAt });
  }

  /** HGETALL as a plain object (empty when missing). */
  hgetall(key: string): Record<string, string> {
    const v = this.live(key)?.value;
    return v instanceof Map ? Object.fromEntries(v) : {};
  }

  /** HDEL of one field. */
  hdel(key: string, field: string): void {
    const v = this.live(key)?.value;
    if (v instanceof Map) v.delete(field);
  }

  /** PEXPIRE; returns false when the key does not exist. */
  pexpire(key: string, ttlMs: number): boolean {
    const entry = this.live(key);
    if (!entry) return false;
    entry.expiresAt = this.now() + ttlMs;
    return true;
  }

  /** PTTL: -2 missing, -1 no expiry, else milliseconds left. */
  pttl(key: string): number {
    const entry = this.live(key);
    if (!entry) return -2;
    return entry.expiresAt === undefined ? -1 : entry.expiresAt - this.now();
  }

  /** DEL. */
  del(key: string): void {
    this.entries.delete(key);
  }

  /** Remove every expired entry (as Redis's active expiry does); returns how many were removed. */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  /** Entries held, expired ones not yet swept included. */
  get size(): number {
    return this.entries.size;
  }

  /** Drop everything (tests simulate a Redis flush). */
  flush(): void {
    this.entries.clear();
  }
}

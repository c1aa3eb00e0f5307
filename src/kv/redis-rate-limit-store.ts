/**
 * rate-limit-redis's `RedisStore`, made to recover from a Redis outage. The library loads its
 * Lua scripts once, in `init()`, and keeps the SCRIPT LOAD promise: when Redis is unreachable at
 * that moment (gateway started before Redis) the promise is rejected and every later
 * increment re-throws it, forever, because only a NOSCRIPT reply makes it reload. The same
 * happens when the NOSCRIPT reload itself fails. This subclass marks itself stale after any
 * failure and re-runs the script loading before its next command.
 * @module
 */
import type { ClientRateLimitInfo, IncrementResponse, Options } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';

/** A `RedisStore` that reloads its scripts after a failure instead of failing forever. */
export class SelfHealingRedisStore extends RedisStore {
  private initOptions: Options | undefined;
  private stale = false;
  private reloading: Promise<void> | undefined;

  override async init(options: Options): Promise<void> {
    this.initOptions = options;
    try {
      await super.init(options);
    } catch (err) {
      this.stale = true;
      throw err;
    }
  }

  override async increment(key: string): Promise<IncrementResponse> {
    return this.healing(() => super.increment(key));
  }

  override async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.healing(() => super.get(key));
  }

  /** Run `command`, reloading the scripts first if an earlier command (or init) failed. */
  private async healing<T>(command: () => Promise<T>): Promise<T> {
    try {
      if (this.stale) await this.reload();
      return await command();
    } catch (err) {
      this.stale = true;
      throw err;
    }
  }

  /** One reload at a time: concurrent requests share it. */
  private reload(): Promise<void> {
    const options = this.initOptions;
    if (!options) return Promise.resolve();
    this.reloading ??= super
      .init(options)
      .then(() => {
        this.stale = false;
      })
      .finally(() => {
        this.reloading = undefined;
      });
    return this.reloading;
  }
}

/**
 * Per-organization upload slots of one replica. There is no replica-wide slot: a body is spooled
 * before any shared resource is taken (see spool.ts), so an organization holding no slot always
 * gets one, whatever other organizations' clients are doing.
 * @module
 */

/** A held slot. `release` is idempotent and needs no `this`, so every path that ends an upload may call it. */
export interface UploadSlot {
  release(this: void): void;
}

/** Counts each organization's uploads in progress against one cap. */
export class OrgUploadSlots {
  /** Uploads in progress per organization (entries removed at zero, so the map holds only active ones). */
  private readonly held = new Map<string, number>();

  constructor(readonly perOrg: number) {}

  /** A slot for `orgId`, or null when the organization already holds `perOrg` of them. */
  acquire(orgId: string): UploadSlot | null {
    const count = this.held.get(orgId) ?? 0;
    if (count >= this.perOrg) return null;
    this.held.set(orgId, count + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(orgId) ?? 1) - 1;
        if (left > 0) this.held.set(orgId, left);
        else this.held.delete(orgId);
      },
    };
  }
}

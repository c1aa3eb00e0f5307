/**
 * Membership ids of the default workspace, which has no membership rows of its own (it lists
 * every member of the organization): an RFC 9562 version-5 (name-based, SHA-1) UUID of the
 * workspace and user, so the same member always has the same, valid UUID.
 * @module
 */
import { createHash } from 'node:crypto';

/** The namespace of these names (a fixed random UUID; changing it would change every id). */
const NAMESPACE = Buffer.from('6f1c2a4e8b7d4c3a9e5f0d1b2c3a4e5f', 'hex');

/** The stable membership id of `userId` in the default workspace `workspaceId`. */
export function defaultMemberId(workspaceId: string, userId: string): string {
  const b = createHash('sha1').update(NAMESPACE).update(`${workspaceId}:${userId}`, 'utf8').digest().subarray(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x50; // version 5
  b[8] = ((b[8] as number) & 0x3f) | 0x80; // variant 10 (RFC 9562)
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

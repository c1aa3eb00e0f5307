/**
 * Microsoft Entra tokens from files a sidecar rotates: each file is looked at (its size, mtime
 * and inode) at most once a second and read again only when it changed, so a rotated token is
 * used within about a second and no request waits on a read. A token is never logged.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';

/** How long a file's last look stands before the next request looks again. */
const RECHECK_MS = 1000;

/** One token file's last reading. */
class TokenFile {
  private token: string | null = null;
  private stamp = '';
  private checkedAt = -Infinity;
  private looking: Promise<string> | null = null;

  constructor(private readonly file: string) {}

  /** The token, looked at again once {@link RECHECK_MS} has passed (one look at a time). */
  current(now: number): Promise<string> {
    if (this.token !== null && now - this.checkedAt < RECHECK_MS) return Promise.resolve(this.token);
    this.looking ??= this.look(now).finally(() => (this.looking = null));
    return this.looking;
  }

  private async look(now: number): Promise<string> {
    try {
      const s = await stat(this.file);
      const stamp = `${s.size}:${s.mtimeMs}:${s.ino}`;
      if (this.token === null || stamp !== this.stamp) {
        const token = (await readFile(this.file, 'utf8')).trim();
        if (token === '') throw new Error('the Entra token file is empty');
        this.token = token;
        this.stamp = stamp;
      }
    } catch (err) {
      // Mid-rotation (the file briefly gone or empty) the last token stands; without one the request cannot be signed.
      if (this.token === null) throw err;
    }
    this.checkedAt = now;
    return this.token;
  }
}

const files = new Map<string, TokenFile>();

/** The current token in `file` (rejects when it was never readable: the attempt fails and falls back). */
export function entraToken(file: string, now = Date.now()): Promise<string> {
  let tokens = files.get(file);
  if (!tokens) files.set(file, (tokens = new TokenFile(file)));
  return tokens.current(now);
}

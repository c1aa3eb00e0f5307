/**
 * One socket write per event-loop turn for all the Redis commands issued in that turn, without
 * ioredis's auto-pipelining. Auto-pipelining batches the same way but builds a Pipeline object
 * per turn, and on the gateway's hot path those lived long enough to be promoted to the old
 * generation, doubling scavenge pauses. Without any batching, every command is its own write
 * syscall (four per embeddings request), about a tenth of the gateway's CPU. Corking the
 * connection's socket at the first command of a turn and uncorking it at the turn's end
 * (`setImmediate`, as auto-pipelining does) sends them together as one gathered write.
 *
 * The command timeout starts there too, when the commands are written, not when they were issued
 * (command-timeout.ts says why); ioredis's own `commandTimeout` must be off.
 * @module
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { armCommandTimeout } from './command-timeout';

/** Make `client` coalesce the commands of each event-loop turn into one socket write, each given `commandTimeoutMs` from then. */
export function coalesceWrites(client: Redis, commandTimeoutMs: number): void {
  if (!Number.isInteger(commandTimeoutMs) || commandTimeoutMs < 1) throw new Error(`coalesceWrites: bad commandTimeoutMs ${commandTimeoutMs}`);
  const target = client as unknown as { stream?: Socket; sendCommand: Redis['sendCommand'] };
  const send = target.sendCommand.bind(client);
  let corked: Socket | null = null;
  /** The commands of the turn, timed from the write at its end; emptied there (one array for every turn), so none is held longer. */
  const turn: unknown[] = [];
  const uncork = (): void => {
    const socket = corked;
    corked = null;
    socket?.uncork();
    // Arming sends nothing, so no command joins `turn` while it is read.
    for (const command of turn) armCommandTimeout(command, commandTimeoutMs);
    turn.length = 0;
  };
  target.sendCommand = function sendCoalesced(...args: Parameters<Redis['sendCommand']>) {
    const socket = target.stream;
    if (corked === null && socket && socket.writable) {
      corked = socket;
      socket.cork();
      setImmediate(uncork);
    }
    const result = send(...args);
    if (corked !== null) turn.push(args[0]);
    else armCommandTimeout(args[0], commandTimeoutMs);
    return result;
  };
}

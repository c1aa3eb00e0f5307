/**
 * One socket write per event-loop turn for all the Redis commands issued in that turn, without
 * ioredis's auto-pipelining. Auto-pipelining batches the same way but builds a Pipeline object
 * per turn, and on the gateway's hot path those lived long enough to be promoted to the old
 * generation, doubling scavenge pauses. Without any batching, every command is its own write
 * syscall (four per embeddings request), about a tenth of the gateway's CPU. Corking the
 * connection's socket at the first command of a turn and uncorking it at the turn's end
 * (`setImmediate`, as auto-pipelining does) sends them together as one gathered write.
 * @module
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';

/** Make `client` coalesce the commands of each event-loop turn into one socket write. */
export function coalesceWrites(client: Redis): void {
  const target = client as unknown as { stream?: Socket; sendCommand: Redis['sendCommand'] };
  const send = target.sendCommand.bind(client);
  let corked: Socket | null = null;
  const uncork = (): void => {
    const socket = corked;
    corked = null;
    socket?.uncork();
  };
  target.sendCommand = function sendCoalesced(...args: Parameters<Redis['sendCommand']>) {
    const socket = target.stream;
    if (corked === null && socket && socket.writable) {
      corked = socket;
      socket.cork();
      setImmediate(uncork);
    }
    return send(...args);
  };
}

/**
 * A Redis command timeout that measures Redis, not the gateway's own event loop. ioredis arms its
 * `commandTimeout` when a command is issued and rejects when the timer fires. Node runs expired
 * timers at the start of a loop iteration, before it reads the sockets, so after any stretch of the
 * loop longer than the timeout (an overload backlog, a long collection) a reply that arrived in
 * time is still unread when its timer fires, and the command fails with "Command timed out" (with
 * ioredis alone: a GET given 100 ms, the loop then busy for 300 ms, fails although Redis answered
 * within a millisecond). For a budgeted request that is a 503 `budget_store_unavailable` with
 * Redis healthy. Here the timer is armed when the command is written (the end of its turn, see
 * coalesce-writes.ts), and when it fires the verdict waits for the loop's next poll pass, which
 * reads every reply already there.
 * @module
 */

/** The members of an ioredis `Command` used here (ioredis 5). */
interface TimedCommand {
  isResolved: boolean;
  reject(err: Error): void;
  /** ioredis's own timer slot: cleared by the command itself once it is answered or failed. */
  _commandTimeoutTimer?: NodeJS.Timeout;
}

/** After the poll pass that followed the timer: fail the command unless its reply was read. */
function verdict(command: TimedCommand): void {
  if (!command.isResolved) command.reject(new Error('Command timed out'));
}

function expired(command: TimedCommand): void {
  if (!command.isResolved) setImmediate(verdict, command);
}

/**
 * Give `command` (an ioredis Command just written to the socket) `ms` to be answered. The timer
 * sits in ioredis's own slot, so the command clears it when its reply comes (no allocation beyond
 * the timer, as with ioredis's option, which must be off for this one to be the only timer). It
 * does not keep the process alive: a command still waiting has its connection for that, and one
 * that already failed (its connection closed in the turn it was issued) needs no verdict.
 */
export function armCommandTimeout(command: unknown, ms: number): void {
  const c = command as TimedCommand;
  if (c.isResolved || c._commandTimeoutTimer !== undefined) return;
  c._commandTimeoutTimer = setTimeout(expired, ms, c).unref();
}

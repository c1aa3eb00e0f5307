/**
 * The switchable TCP proxy the fault tests put in front of Redis or Postgres to make them
 * unreachable and bring them back. One implementation, in plain JavaScript, shared with the
 * benchmark's fault run (bench/faults.js), which runs without a build.
 */
export { tcpProxy, type TcpProxy } from '../../bench/lib/tcp-proxy';

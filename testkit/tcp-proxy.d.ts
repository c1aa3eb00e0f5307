/** Types of tcp-proxy.js (a switchable loopback TCP proxy; see there). */

/** A switchable proxy on a fixed loopback port. */
export interface TcpProxy {
  port: number;
  /** Start accepting and forwarding connections. */
  open(): Promise<void>;
  /** Stall every connection (open and new) without closing it: nothing is forwarded until {@link resume}. */
  pause(): void;
  /** Forward again. */
  resume(): void;
  /** Stop listening and cut every forwarded connection. */
  close(): Promise<void>;
}

/** A proxy to `targetHost:targetPort`, initially closed. */
export function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy>;

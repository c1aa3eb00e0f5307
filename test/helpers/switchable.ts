/**
 * A part of a gateway's deps that a test replaces for a while, put in when the gateway is built
 * (the deps are frozen: nothing is assigned into a live app). `wrap` goes to the build options
 * (`wrap: { spend: guard.wrap }`); the gateway then runs on a stand-in that forwards every call to
 * the replacement `use` put in, else to the real part.
 */
export interface Switchable<T extends object> {
  /** For the build options: receives the real part, returns the stand-in the gateway runs on. */
  readonly wrap: (real: T) => T;
  /** The real part (once the gateway is built). */
  readonly real: T;
  /** Put `replacement` in, or the real part back (undefined). */
  use(replacement: T | undefined): void;
}

/** A {@link Switchable} part; the stand-in forwards property reads (methods bound to the part they came from). */
export function switchable<T extends object>(): Switchable<T> {
  let real: T | undefined;
  let replacement: T | undefined;
  return {
    wrap: (built) => {
      real = built;
      return new Proxy(built, {
        get(target, prop) {
          const current = replacement ?? target;
          const value: unknown = Reflect.get(current, prop);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
        },
        has: (target, prop) => Reflect.has(replacement ?? target, prop),
      });
    },
    get real(): T {
      if (!real) throw new Error('switchable: the gateway is not built yet');
      return real;
    },
    use(r) {
      replacement = r;
    },
  };
}

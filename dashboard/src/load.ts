/**
 * One page load as a state: loading, failed with a plain message, or ready with its data. Each
 * page runs its calls in parallel inside one loader, so it loads in a single round of requests.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api';

/** Where a load is. */
export type Load<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; data: T };

/**
 * Run `loader` now and whenever `deps` change or `reload()` is called; a late answer of a
 * superseded run is dropped.
 */
export function useLoad<T>(loader: () => Promise<T>, deps: unknown[]): [Load<T>, () => void] {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoad({ state: 'loading' });
    loader().then(
      (data) => current && setLoad({ state: 'ready', data }),
      (err: unknown) => current && setLoad({ state: 'error', message: describeError(err) }),
    );
    return () => {
      current = false;
    };
    // The loader is a fresh closure each render; `deps` and `round` say when to run it again.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return [load, reload];
}

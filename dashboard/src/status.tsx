/** The loading and failure states every page shows the same way. */
import type { ComponentChildren } from 'preact';
import type { Load } from './load';

/** "Loading…" (announced politely) or the failure message (announced at once). */
export function Status({ load }: { load: Load<unknown> }) {
  if (load.state === 'loading')
    return (
      <p class="status" role="status">
        Loading…
      </p>
    );
  if (load.state === 'error')
    return (
      <p class="error" role="alert">
        Could not load this page: {load.message}
      </p>
    );
  return null;
}

/** The empty state: a sentence saying there is nothing yet, and what would fill the page. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A form's failure message, announced when it appears. */
export function FormError({ id, message }: { id?: string; message: string | null }) {
  return message ? (
    <p class="error" role="alert" id={id}>
      {message}
    </p>
  ) : null;
}

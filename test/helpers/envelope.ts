/** The error envelopes the sweeps check, per door. */

/**
 * Whether `body` is the error envelope of the door at `template`: Anthropic's
 * `{type: "error", error: {type, message}}` on the Messages paths, else the hosted service's
 * `{error: {code, message}}` with code == status.
 */
export function isEnvelope(template: string, status: number, body: unknown): boolean {
  const b = body as { type?: unknown; error?: { code?: unknown; type?: unknown; message?: unknown } } | undefined;
  const message = b?.error?.message;
  if (typeof message !== 'string' || message === '') return false;
  if (template.startsWith('/api/v1/messages')) return b?.type === 'error' && typeof b.error?.type === 'string';
  return b?.error?.code === status;
}

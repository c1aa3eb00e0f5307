/** Sign-in: the management key is exchanged once for a session cookie and then forgotten. */
import { useState } from 'preact/hooks';
import { describeError, signIn, type Session } from '../api';
import { FormError } from '../status';

/** The sign-in form; `onSignedIn` gets the new session. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Never rejects (a failure is shown in the form), so the form does not wait for it.
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key.trim());
      setKey('');
      onSignedIn(session);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Switchyard</h1>
      {notice && <p class="notice">{notice}</p>}
      <form onSubmit={(e) => void submit(e)} aria-describedby="sign-in-help">
        <label for="key">Management key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <FormError id="sign-in-error" message={error} />
      </form>
      <p id="sign-in-help" class="help">
        The key is exchanged for a session cookie that expires; the browser does not keep the key.
      </p>
    </main>
  );
}

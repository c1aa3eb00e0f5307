/**
 * The client's body bytes kept beside the parsed body (src/http/raw-json-body.ts) and the upstream
 * body that copies the members it passes on unchanged (src/providers/upstream-json.ts): each
 * member's bytes are exactly the member `JSON.parse` read, whatever the spacing, escapes, nesting
 * and repeated names, and the upstream body means what `JSON.stringify` of it would; a body's
 * large members given up once sent read back as the same values.
 */
import fc from 'fast-check';
import { forgetRawJson, keepRawJson, rawMember, releaseRawMembers } from '../../src/http/raw-json-body';
import { upstreamJson } from '../../src/providers/upstream-json';
import { definitionSchemas, requestSchemas } from '../../src/wire';

/** JSON text of `value` with spacing and escapes a client may write (all valid JSON). */
function oddlyWritten(value: unknown, space: string, escapeAll: boolean): string {
  const text = JSON.stringify(value, null, space);
  if (!escapeAll) return text;
  // Non-ASCII characters as \u escapes, and every `/` as `\/`: the same value, other bytes.
  return text
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}

const member = fc.jsonValue({ maxDepth: 4 });
const body = fc.dictionary(fc.string({ maxLength: 8 }), member, { maxKeys: 8 });

test('each member of a kept body is the bytes of the value JSON.parse read', () => {
  fc.assert(
    fc.property(body, fc.constantFrom('', ' ', '\t', '\n  '), fc.boolean(), (value, space, escapeAll) => {
      const bytes = Buffer.from(oddlyWritten(value, space, escapeAll));
      const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      keepRawJson(parsed, bytes);
      for (const key of Object.keys(parsed)) {
        const raw = rawMember(parsed, key);
        expect(raw).toBeDefined();
        expect(JSON.parse(raw!.toString('utf8'))).toEqual(parsed[key]);
      }
    }),
    { numRuns: 300 },
  );
});

test('a name written with escapes, or given twice, resolves as JSON.parse resolves it', () => {
  const text = '{ "mess\\u0061ges" : [1], "tools":{"a":"}\\"{"} ,\n"messages":[2, {"x":"\\\\"}], "n": -1.5e3 }';
  const parsed = JSON.parse(text) as Record<string, unknown>;
  keepRawJson(parsed, Buffer.from(text));
  expect(rawMember(parsed, 'messages')?.toString()).toBe('[2, {"x":"\\\\"}]');
  expect(rawMember(parsed, 'tools')?.toString()).toBe('{"a":"}\\"{"}');
  expect(JSON.parse(rawMember(parsed, 'n')!.toString())).toBe(-1500);
  expect(rawMember(parsed, 'absent')).toBeUndefined();
});

test('the upstream body copies the members it shares with the client body and serialises the rest', () => {
  fc.assert(
    fc.property(body, fc.boolean(), (value, escapeAll) => {
      const bytes = Buffer.from(oddlyWritten(value, ' ', escapeAll));
      const client = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      keepRawJson(client, bytes);
      // Some members as the client sent them, one replaced, one added, one left undefined.
      const out: Record<string, unknown> = { model: 'upstream-name', ...client, replaced: [1, 2], gone: undefined };
      const sent = upstreamJson(out, client);
      expect(JSON.parse(sent.toString())).toEqual(JSON.parse(JSON.stringify(out)));
    }),
    { numRuns: 300 },
  );
});

test('a member copied as sent keeps the client bytes; a changed or forgotten body is serialised', () => {
  const text = '{"messages":[{"role":"user","content":"caf\\u00e9"}],"tools":[ ]}';
  const client = JSON.parse(text) as Record<string, unknown>;
  keepRawJson(client, Buffer.from(text));
  expect(upstreamJson({ model: 'm', messages: client.messages }, client).toString()).toBe(
    '{"model":"m","messages":[{"role":"user","content":"caf\\u00e9"}]}',
  );
  // A new value under the same name is the new value, not the client's bytes.
  expect(upstreamJson({ messages: [] }, client)).toBe('{"messages":[]}');
  forgetRawJson(client);
  expect(rawMember(client, 'messages')).toBeUndefined();
  expect(upstreamJson({ messages: client.messages }, client)).toBe('{"messages":[{"role":"user","content":"café"}]}');
});

test('a body gives up its large members once sent and reads them back from its bytes as the same values', () => {
  const big = (n: number) => Array.from({ length: n }, (_, i) => ({ role: 'user', content: `caf\u00e9 ${i} \\/` }));
  fc.assert(
    fc.property(fc.constantFrom('', ' ', '\n  '), fc.integer({ min: 0, max: 400 }), (space, n) => {
      const value = { model: 'm', messages: big(n), tools: big(n >> 1), stream: true, messages_count: n };
      const text = JSON.stringify(value, null, space);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      keepRawJson(parsed, Buffer.from(text));
      const before = JSON.stringify(parsed);
      const bytes = rawMember(parsed, 'messages')?.toString();
      releaseRawMembers(parsed);
      const released = (name: string) => 'get' in Object.getOwnPropertyDescriptor(parsed, name)!;
      // Only members of at least 4 KB are given up; the small ones stay plain.
      expect(released('messages')).toBe(bytes !== undefined && bytes.length >= 4096);
      expect(released('model') || released('stream') || released('messages_count')).toBe(false);
      expect(Object.keys(parsed)).toEqual(Object.keys(value));
      expect(rawMember(parsed, 'messages')?.toString()).toBe(bytes);
      // Read back: the same value, then a plain member again (read once, kept).
      expect(JSON.stringify(parsed)).toBe(before);
      expect(released('messages')).toBe(false);
      expect(parsed.messages).toBe(parsed.messages);
    }),
    { numRuns: 40 },
  );
});

test('a given-up member can be replaced; a body with no bytes kept keeps its members', () => {
  const text = JSON.stringify({ messages: 'x'.repeat(5000) });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  keepRawJson(parsed, Buffer.from(text));
  releaseRawMembers(parsed);
  parsed.messages = 'replaced';
  expect(parsed).toEqual({ messages: 'replaced' });
  const loose = JSON.parse(text) as Record<string, unknown>;
  releaseRawMembers(loose);
  expect(Object.getOwnPropertyDescriptor(loose, 'messages')).toHaveProperty('value', 'x'.repeat(5000));
});

test('no inference body schema fills in defaults: a validated body is still what its bytes say', () => {
  // ajv's useDefaults would add members the kept bytes lack; these schemas must not declare any.
  const inference = new Set(['chat.create.body', 'messages.create.body', 'responses.create.body']);
  const bodies = requestSchemas.filter((s) => inference.has(s.$id));
  expect(bodies).toHaveLength(inference.size);
  // The definitions the bodies refer to, too.
  for (const schema of [...bodies, ...definitionSchemas]) expect(JSON.stringify(schema)).not.toMatch(/"default":/);
});

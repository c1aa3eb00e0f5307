/**
 * RawObject (src/providers/raw-object.ts): members read one by one from an upstream object's
 * bytes, and the object written again with some changed, the rest as it came: the same as
 * parsing the whole and spreading the changes over it, whatever the spacing and escapes.
 */
import { RawObject } from '../../src/providers/raw-object';

const samples = [
  '{"id":"resp_1","model":"m","tools":[{"type":"function","name":"a\\"b"}],"usage":null}',
  '{ "id" : "x" ,\n  "nested": {"id": "inner", "list": [1, 2, {"}": "{"}]},\n  "text": "caf\\u00e9 \\/ \\\\" }',
  '{}',
  '{"a":1,"a":2}',
];

test.each(samples)('with(changes) means what parsing and spreading would: %s', (text) => {
  const raw = new RawObject(Buffer.from(text));
  expect(raw.wellFormed).toBe(true);
  const changes = { id: 'gw', added: { x: [1] }, usage: { cost: 0.5 } };
  expect(JSON.parse(raw.with(changes))).toEqual({ ...(JSON.parse(text) as object), ...changes });
  expect(JSON.parse(raw.with({}))).toEqual(JSON.parse(text));
});

test('get parses one member, object reads a member as an object of its own, undefined removes', () => {
  const raw = new RawObject(Buffer.from(samples[1]!));
  expect(raw.get('text')).toBe('café / \\');
  expect(raw.get('missing')).toBeUndefined();
  expect(raw.has('nested')).toBe(true);
  const nested = raw.object('nested')!;
  expect(nested.get('list')).toEqual([1, 2, { '}': '{' }]);
  expect(JSON.parse(nested.with({ id: 'relabelled' }))).toEqual({ id: 'relabelled', list: [1, 2, { '}': '{' }] });
  expect(raw.object('text')).toBeNull();
  expect(JSON.parse(raw.with({ nested: undefined }))).toEqual({ id: 'x', text: 'café / \\' });
  expect(new RawObject(Buffer.from('{"a":1,"a":2}')).get('a')).toBe(2);
});

test('bytes that are no object are told apart without parsing', () => {
  for (const text of ['', '[1,2]', '{"a":1', 'null', '"{}"'])
    expect(new RawObject(Buffer.from(text)).wellFormed).toBe(false);
});

/**
 * The wire schemas of src/wire/: every request schema compiles into a validator, and the
 * response-schema check the integration tests use fails on an answer with a field missing, added
 * or of the wrong type (so a test that calls it can fail).
 */
import { getValidator } from '../../src/validation/schemas';
import { requestSchemas, responseSchemas } from '../../src/wire';
import { expectSchema } from '../helpers/expect-schema';

const KEY = {
  hash: 'a'.repeat(64),
  name: 'n',
  label: 'sk-sy-v1-abc...def',
  disabled: false,
  limit: null,
  limit_remaining: null,
  limit_reset: null,
  include_byok_in_limit: false,
  usage: 0,
  usage_daily: 0,
  usage_weekly: 0,
  usage_monthly: 0,
  byok_usage: 0,
  byok_usage_daily: 0,
  byok_usage_weekly: 0,
  byok_usage_monthly: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: null,
  expires_at: null,
  creator_user_id: null,
  external_user: null,
  workspace_id: 'w',
};

describe('wire schemas', () => {
  test('every request schema compiles, each id naming its part (body, query or params)', () => {
    for (const { $id } of requestSchemas) {
      expect($id).toMatch(/\.(body|query|params)$/);
      expect(typeof getValidator($id).all).toBe('function');
    }
  });

  test('every response schema id ends in .response', () => {
    for (const { $id } of responseSchemas) expect($id).toMatch(/\.response$/);
  });

  test('expectSchema accepts a matching answer and names what is wrong with one that does not', () => {
    expect(() => expectSchema({ data: [KEY] }, 'keys.list.response')).not.toThrow();
    const { usage: _usage, ...missing } = KEY;
    expect(() => expectSchema({ data: [missing] }, 'keys.list.response')).toThrow(
      /body\.data\.0\.usage must have required property 'usage'/,
    );
    expect(() => expectSchema({ data: [{ ...KEY, secret: 'x' }] }, 'keys.list.response')).toThrow(
      /body\.data\.0\.secret is not allowed/,
    );
    expect(() => expectSchema({ data: KEY, key: 1 }, 'keys.create.response')).toThrow(/body\.key must be string/);
  });
});

/**
 * Format overrides on top of ajv-formats, so that what validation accepts is what the code can
 * use. ajv-formats' `date-time` follows RFC 3339 to the letter and accepts a leap second
 * (`2099-12-31T23:59:60Z`), which `new Date()` turns into an Invalid Date (NaN): the value then
 * passed validation and failed in the database as a 500. Here a date-time must also parse.
 * @module
 */
import type Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';

interface StringFormat {
  validate: (value: string) => boolean;
  compare?: (a: string, b: string) => number | undefined;
}

const rfc3339DateTime = fullFormats['date-time'] as StringFormat;

/** RFC 3339 date-time that is also a valid JavaScript Date (no leap seconds). */
export function isUsableDateTime(value: string): boolean {
  return rfc3339DateTime.validate(value) && Number.isFinite(Date.parse(value));
}

/** Replace ajv-formats' `date-time` with {@link isUsableDateTime}; call after `addFormats`. */
export function addStrictFormats(ajv: Ajv): void {
  ajv.addFormat('date-time', { type: 'string', validate: isUsableDateTime, compare: rfc3339DateTime.compare });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Is `value` a plain UUID (no `urn:uuid:` prefix or braces)? The one test for ids the CLI and repositories take. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

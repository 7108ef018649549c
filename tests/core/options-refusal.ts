// The rule every options object of the public API follows (docs/reliability.md, "No value
// becomes a default by accident"): `undefined` means the default; `null`, `NaN`, a boxed number,
// a string for a number, an empty slot of an array… are refused with the documented error (a
// TypeError for a wrong type, a RangeError out of range) whose message names the option and
// shows the value. Shared by tests/core/options-null-refused.test.ts (Node) and
// tests/web/options-null-refused.test.ts (the calls that need a browser).
import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * What an option takes, which decides the bad values tried: `number` (also `ms`, bytes,
 * counts), `bool`, `string`, `enum` (a string of a fixed set), `fn`, `object` (any non-null
 * object: a clock, a store, a signal, a record), `numbers` / `strings` / `objects` (arrays, whose
 * elements are tried too), and unions written with `|`: `number|string` (e.g. `'auto'`),
 * `number|array` (`size: 8` or `[8, 8]`), `string|object` (a URL or a URL object, a fingerprint).
 */
export type Kind =
  | 'number'
  | 'bool'
  | 'string'
  | 'enum'
  | 'fn'
  | 'object'
  | 'numbers'
  | 'strings'
  | 'objects'
  | 'number|string'
  | 'number|array'
  | 'number|bool'
  | 'string|object'
  | 'string|array'
  | 'fn|object'
  | 'fn|bool'
  | 'object|bool';

/** An option: its kind, or its kind and a valid array value (where holes are punched). */
export type OptionSpec = Kind | readonly [Kind, readonly unknown[]];

/** One public call that takes an options object, and what each of its options takes. */
export interface OptionsCase {
  /** The call, as the tests name it, e.g. `new DataLoader(ds, options)`. */
  call: string;
  /** The exported options types the call takes (each of their fields must be listed here). */
  types: readonly string[];
  /** Make the call with `options` (`undefined`: no options argument); may throw or reject. */
  run(options: unknown): unknown;
  /** A valid options object; a bad value replaces one of its fields. @default {} */
  base?: Record<string, unknown>;
  /** What error messages put before an option's name (`'cutout.'`). @default '' */
  prefix?: string;
  /** Dotted paths (`toFloat32.scale`) → what they take. */
  options: Readonly<Record<string, OptionSpec>>;
  /** Options the valid run needs (no default, or the test's stand-in server): not left out. */
  required?: readonly string[];
  /** Options whose `null` the docs give a meaning (not refused), with that meaning. */
  nullMeans?: Readonly<Record<string, string>>;
  /** Options not tried here, each with the reason (covered elsewhere, browser only). */
  untested?: Readonly<Record<string, string>>;
  /** Release what a call that succeeded made (a store, a pool). */
  cleanup?(result: unknown): unknown;
}

/** A bad value and the error it must get. */
export interface Bad {
  /** How the test names it. */
  label: string;
  /** The option's value, or for an array option the array holding the bad element. */
  value: unknown;
  /** The error class the docs name. */
  error: typeof TypeError | typeof RangeError;
  /** What the message must name: the option's path, plus `[i]` for an array's element. */
  at: string;
  /** What the message must show of the value (any one of these). */
  shown: readonly string[];
}

const show = (v: unknown): string[] =>
  v === null
    ? ['null']
    : typeof v === 'string'
      ? [JSON.stringify(v), v]
      : typeof v === 'object'
        ? [Object.prototype.toString.call(v), String(v)]
        : [String(v)];

/** A wrong-type value: TypeError. */
const wrong = (label: string, value: unknown): Bad => ({
  label,
  value,
  error: TypeError,
  at: '',
  shown: show(value),
});

/** The fixed bad values of a kind, for an option whose valid value is `valid`. */
export function badValues(spec: OptionSpec): Bad[] {
  const [kind, valid] = typeof spec === 'string' ? [spec, undefined] : spec;
  const parts = kind.split('|');
  const out: Bad[] = [wrong('null', null)];
  if (parts.includes('number')) {
    out.push({ label: 'NaN', value: Number.NaN, error: RangeError, at: '', shown: ['NaN'] });
    out.push(wrong('a boxed number', new Number(3)));
    if (!parts.includes('string')) out.push(wrong('a string for a number', '3'));
  }
  if (kind === 'bool')
    out.push(wrong('a boxed boolean', new Boolean(true)), wrong("'true'", 'true'));
  if (kind === 'string' || kind === 'enum')
    out.push(wrong('a boxed string', new String('x')), wrong('a number', 42));
  if (kind === 'enum') {
    out.push({
      label: 'an unknown value',
      value: 'no-such-value',
      error: RangeError,
      at: '',
      shown: ['"no-such-value"', 'no-such-value'],
    });
  }
  if (kind === 'fn') out.push(wrong('a string', 'f'));
  if (kind === 'object') out.push(wrong('a number', 42));
  const arrays = ['numbers', 'strings', 'objects', 'array'];
  if (parts.some((p) => arrays.includes(p)) && valid && valid.length > 0) {
    const i = valid.length - 1;
    const holed = [...valid];
    delete holed[i];
    out.push({
      label: 'an empty slot',
      value: holed,
      error: TypeError,
      at: `[${i}]`,
      shown: ['empty slot'],
    });
    const nulled = [...valid];
    nulled[i] = null;
    out.push({
      label: 'a null element',
      value: nulled,
      error: TypeError,
      at: `[${i}]`,
      shown: ['null'],
    });
    if (kind === 'numbers' || typeof valid[i] === 'number') {
      const nan = [...valid];
      nan[i] = Number.NaN;
      out.push({
        label: 'a NaN element',
        value: nan,
        error: RangeError,
        at: `[${i}]`,
        shown: ['NaN'],
      });
    }
  }
  return out;
}

/** Values of the wrong type for a kind, drawn by fast-check: each must be a TypeError. */
export function wrongTypes(spec: OptionSpec): fc.Arbitrary<unknown> {
  const kind = typeof spec === 'string' ? spec : spec[0];
  const parts = kind.split('|');
  const options: fc.Arbitrary<unknown>[] = [fc.constant(null)];
  if (!parts.includes('number')) options.push(fc.integer(), fc.double());
  else options.push(fc.double().map((n) => new Number(n)));
  if (!parts.includes('string') && kind !== 'enum') {
    options.push(parts.includes('number') ? fc.integer().map(String) : fc.string());
  }
  if (!parts.includes('bool')) options.push(fc.boolean());
  if (!parts.some((p) => ['object', 'numbers', 'strings', 'objects', 'array'].includes(p))) {
    options.push(fc.constant({}), fc.constant([]));
  }
  return fc.oneof(...options);
}

/** `base` with the dotted `path` set to `value` (copies on the way down; `undefined` is kept as a key). */
export function withOption(base: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  const top: Record<string, unknown> = { ...base };
  let at = top;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    at[k] = next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]!] = value;
  return top;
}

/** Settle a call (sync or async) within `ms`: its result or its error. */
export async function settle(
  run: () => unknown,
  ms = 5_000,
): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  try {
    const value = await Promise.race([
      Promise.resolve().then(run),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`did not settle in ${ms} ms`)), ms),
      ),
    ]);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Expect `c.run` with option `path` set to `bad.value` to be refused as the docs say. */
export async function expectRefused(c: OptionsCase, path: string, bad: Bad): Promise<void> {
  const options = withOption(c.base ?? {}, path, bad.value);
  const r = await settle(() => c.run(options));
  if (r.ok) await c.cleanup?.(r.value);
  const where = `${c.call} with ${path}: ${bad.label}`;
  expect(r.ok, `${where} was accepted`).toBe(false);
  if (r.ok) return;
  const error = r.error as Error;
  expect(error, `${where}: ${error}`).toBeInstanceOf(bad.error);
  const name = `${c.prefix ?? ''}${path}${bad.at}`;
  expect(error.message, `${where}: the message must name ${name}`).toContain(name);
  expect(
    bad.shown.some((s) => error.message.includes(s)),
    `${where}: the message must show the value (${bad.shown.join(' or ')}): ${error.message}`,
  ).toBe(true);
}

/** Every option path of a case that is tried, with its spec. */
export function triedOptions(c: OptionsCase): [string, OptionSpec][] {
  return Object.entries(c.options).filter(([path]) => !c.untested?.[path]);
}

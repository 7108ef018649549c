import type { Clock } from './Clock.js';

/**
 * Argument checks shared by every public constructor and method of core and
 * web (web imports them from `@medfusion/core/internal`; it never copies one).
 * Each names the option (or argument) and the bad value in its message, and
 * every bad value is shown one way: {@link showValue}. A check that does not
 * fit one of these builds its error with {@link badType} / {@link badRange}.
 *
 * One rule for every options object: `undefined` (absent) means the default,
 * and only `undefined` ({@link withDefault}, {@link optionsBag}). `null`, `NaN`,
 * a boxed number (`new Number(3)`), a string for a number or an empty slot of
 * an array ({@link arrayOf}) goes through the option's check and is refused
 * with a TypeError (wrong type) or RangeError (out of range) naming the option,
 * unless the option's docs give `null` a meaning. JSON configs and plain
 * JavaScript produce `null` all the time; it never becomes a default by accident.
 */

/** A check of one value: returns it (or its normalised form), throws naming `name` otherwise. */
export type Check<T> = (name: string, value: unknown) => T;

/**
 * The one place an option gets its default: `fallback` when `value` is
 * `undefined` (absent), else `check(name, value)`, so `null` and every other
 * stand-in is refused by the option's own check. Never `options.x ?? fallback`,
 * which turns `null` into the default.
 */
export function withDefault<T, F = T>(
  name: string,
  value: unknown,
  fallback: F,
  check: Check<T>,
): T | F {
  return value === undefined ? fallback : check(name, value);
}

/**
 * An options bag: `{}` when `value` is `undefined` (all defaults), the object
 * itself when it is one, else a TypeError naming `name` (`null` included).
 */
export function optionsBag<O extends object>(name: string, value: O | undefined | null): O {
  if (value === undefined) return {} as O;
  if (value === null || typeof value !== 'object') throw badType(name, 'an object', value);
  return value;
}

/** Render a value for an error message: strings quoted, objects by their tag, never their contents. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'object' && value !== null) return Object.prototype.toString.call(value);
  return String(value);
}

/** The TypeError of a bad value: `${name} must be ${expected}, got ${showValue(value)}`. */
export function badType(name: string, expected: string, value: unknown): TypeError {
  return new TypeError(`${name} must be ${expected}, got ${showValue(value)}`);
}

/** The RangeError of a bad value: `${name} must be ${expected}, got ${showValue(value)}`. */
export function badRange(name: string, expected: string, value: unknown): RangeError {
  return new RangeError(`${name} must be ${expected}, got ${showValue(value)}`);
}

/**
 * `value` must be a non-null object (an options bag); `expected` says more
 * (e.g. 'an object with a url'). Throws a TypeError naming `name`.
 */
export function object<T extends object>(
  name: string,
  value: T,
  expected = 'an object',
): NonNullable<T> {
  if (value === null || typeof value !== 'object') throw badType(name, expected, value);
  return value as NonNullable<T>;
}

/** `value` must be a non-empty string. */
export function nonEmptyString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw badType(name, 'a non-empty string', value);
  if (value === '') throw badRange(name, 'a non-empty string', value);
  return value;
}

/**
 * `value` must be an integer ≥ 1. Throws TypeError for non-numbers, RangeError
 * otherwise; `alsoAccepted` names the other values the option takes (e.g.
 * ` or 'auto'`), for the TypeError's message.
 */
export function positiveInt(name: string, value: unknown, alsoAccepted = ''): number {
  if (typeof value !== 'number') {
    throw new TypeError(
      `${name} must be a positive integer${alsoAccepted}, got ${showValue(value)}`,
    );
  }
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${showValue(value)}`);
  }
  return value;
}

/** `value` must be an integer ≥ 0. */
export function nonNegativeInt(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a non-negative integer, got ${showValue(value)}`);
  }
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${showValue(value)}`);
  }
  return value;
}

/** `value` must be a finite number > 0. */
export function positiveFinite(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a finite positive number, got ${showValue(value)}`);
  }
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite positive number, got ${showValue(value)}`);
  }
  return value;
}

/** `value` must be a finite number ≥ 0. */
export function nonNegativeFinite(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a finite non-negative number, got ${showValue(value)}`);
  }
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite non-negative number, got ${showValue(value)}`);
  }
  return value;
}

/** `value` must be a number > 0 (`Infinity` allowed: waits for ever), in milliseconds. */
export function positiveMs(name: string, value: unknown): number {
  if (typeof value !== 'number') throw badType(name, 'a positive number of milliseconds', value);
  if (!(value > 0)) throw badRange(name, 'a positive number of milliseconds', value);
  return value;
}

/** `value` must be a number ≥ 0 (`Infinity` allowed), in milliseconds. */
export function nonNegativeMs(name: string, value: unknown): number {
  if (typeof value !== 'number')
    throw badType(name, 'a non-negative number of milliseconds', value);
  if (!(value >= 0)) throw badRange(name, 'a non-negative number of milliseconds', value);
  return value;
}

/** A byte budget: a finite number ≥ 1, rounded down to whole bytes. */
export function positiveBytes(name: string, value: unknown): number {
  if (typeof value !== 'number') throw badType(name, 'a positive number of bytes', value);
  if (!Number.isFinite(value) || value < 1) {
    throw badRange(name, 'a positive number of bytes', value);
  }
  return Math.floor(value);
}

/** `value` must be a boolean. */
export function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new TypeError(`${name} must be a boolean, got ${showValue(value)}`);
  return value;
}

/** `value` must be one of `allowed`: TypeError for a non-string (`null` included), RangeError for another string. */
export function oneOfValues<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  const expected = `one of ${allowed.map((a) => `'${a}'`).join(', ')}`;
  if (typeof value !== 'string') throw badType(name, expected, value);
  if (!(allowed as readonly string[]).includes(value)) throw badRange(name, expected, value);
  return value as T;
}

/** `value` must be a function; `expected` says more (e.g. 'a function returning a Worker'). */
export function func(name: string, value: unknown, expected = 'a function'): void {
  if (typeof value !== 'function') throw badType(name, expected, value);
}

/** `value` must be a function: {@link func} as a {@link Check}, returning it typed as `F`. */
export function fn<F>(name: string, value: unknown): F {
  func(name, value);
  return value as F;
}

/** `index` must be an integer in [0, length). */
export function index(value: unknown, length: number, name = 'index'): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new RangeError(`${name} must be an integer in [0, ${length}), got ${showValue(value)}`);
  }
  if (value < 0 || value >= length) {
    throw new RangeError(`${name} ${value} is out of range [0, ${length})`);
  }
  return value;
}

/**
 * Throw a TypeError naming the first key of `options` not in `known` (catches
 * the Python names, e.g. `prefetch_size`, which would otherwise be ignored).
 * `who` names the constructor in the message.
 */
export function rejectUnknownOptions(options: object, known: readonly string[], who: string): void {
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new TypeError(
        `unknown option ${JSON.stringify(name)}; ${who} takes ${known.join(', ')}`,
      );
    }
  }
}

/**
 * `value` must be an array whose every element passes `check` (named
 * `name[i]`); `expected` describes the array for the TypeError of a
 * non-array. An empty slot (`[1, , 3]`, `new Array(3)`) is a TypeError naming
 * it, never read as `undefined` nor skipped (as `forEach` and `map` would).
 */
export function arrayOf<T>(
  name: string,
  value: unknown,
  check: Check<T>,
  expected = 'an array',
): T[] {
  if (!Array.isArray(value)) throw badType(name, expected, value);
  const out: T[] = [];
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) {
      throw new TypeError(`${name}[${i}] must be given, got an empty slot (a hole in the array)`);
    }
    out.push(check(`${name}[${i}]`, value[i]));
  }
  return out;
}

/** `value` must be a number (any, `NaN` and `Infinity` included): the element check of {@link arrayOf} for numbers checked later. */
export function number(name: string, value: unknown): number {
  if (typeof value !== 'number') throw badType(name, 'a number', value);
  return value;
}

/** `value` must be a string (the empty one included). */
export function string(name: string, value: unknown): string {
  if (typeof value !== 'string') throw badType(name, 'a string', value);
  return value;
}

/** `value` must be a {@link Clock}: an object with `now`, `setTimeout` and `clearTimeout`. */
export function clock(name: string, value: unknown): Clock {
  const c = value as Partial<Clock> | null;
  if (
    c === null ||
    typeof c !== 'object' ||
    typeof c.now !== 'function' ||
    typeof c.setTimeout !== 'function' ||
    typeof c.clearTimeout !== 'function'
  ) {
    throw badType(name, 'a Clock (now, setTimeout, clearTimeout)', value);
  }
  return c as Clock;
}

/** `value` must be an `AbortSignal` (any realm's: an object with `aborted` and `addEventListener`). */
export function abortSignal(name: string, value: unknown): AbortSignal {
  const s = value as Partial<AbortSignal> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.aborted !== 'boolean' ||
    typeof s.addEventListener !== 'function'
  ) {
    throw badType(name, 'an AbortSignal', value);
  }
  return s as AbortSignal;
}

/**
 * Argument checks shared by every public constructor and method of core and
 * web (web imports them from `@medfusion/core/internal`; it never copies one).
 * Each names the option (or argument) and the bad value in its message, and
 * every bad value is shown one way: {@link showValue}. A check that does not
 * fit one of these builds its error with {@link badType} / {@link badRange}.
 */

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

/** `value` must be one of `allowed`. */
export function oneOfValues<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new RangeError(
      `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${showValue(value)}`,
    );
  }
  return value as T;
}

/** `value` must be a function; `expected` says more (e.g. 'a function returning a Worker'). */
export function func(name: string, value: unknown, expected = 'a function'): void {
  if (typeof value !== 'function') throw badType(name, expected, value);
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

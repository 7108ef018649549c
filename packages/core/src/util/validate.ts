/**
 * Argument checks shared by every public constructor and method. Each names
 * the option (or argument) and the bad value in its message.
 */

/** Render a value for an error message: strings quoted, objects by their tag, never their contents. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'object' && value !== null) return Object.prototype.toString.call(value);
  return String(value);
}

/** `value` must be an integer ≥ 1. Throws TypeError for non-numbers, RangeError otherwise. */
export function positiveInt(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a positive integer, got ${showValue(value)}`);
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

/** `value` must be a boolean. */
export function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new TypeError(`${name} must be a boolean, got ${showValue(value)}`);
  return value;
}

/** `value` must be one of `allowed`. */
export function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new RangeError(
      `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${showValue(value)}`,
    );
  }
  return value as T;
}

/** `value` must be a function. */
export function func(name: string, value: unknown): void {
  if (typeof value !== 'function')
    throw new TypeError(`${name} must be a function, got ${showValue(value)}`);
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

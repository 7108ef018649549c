import { isErrorCode } from './errorCodes.js';

/**
 * An error flattened to plain data that survives `postMessage` (structured
 * clone), the one shape every worker boundary of MedFusion uses. Internal.
 */
export interface SerializedError {
  /** The original `error.name` (a class name like `StoreError`, or `TypeError`, ...). */
  name: string;
  /** The original message. */
  message: string;
  /** The original `error.code` when it was a string or a number (as a string). */
  code?: string;
  /** The sample index the error is about, when it had one. */
  index?: number;
  /** The stack as captured where the error was thrown. */
  stack?: string;
  /** Set when the error was a `MedFusionError` (of a class the receiver may not know). */
  ours?: true;
  /** Set when the error was a platform `DOMException`. */
  dom?: true;
  /** Other own fields with primitive values (`url`, `status`, `timeoutMs`, ...). */
  fields?: Record<string, string | number | boolean | null>;
  /** The serialized `cause`, when there was one. */
  cause?: SerializedError;
}

/** A class the registry can rebuild; its constructor is never called on rebuild. */
export type ErrorClass = abstract new (...args: never[]) => Error;

const classes = new Map<string, ErrorClass>();
const BUILT_IN = new Set(['name', 'message', 'stack', 'code', 'index', 'cause']);
const MAX_CAUSE_DEPTH = 4;

/**
 * Make `name` (the value the class sets as `this.name`, which survives
 * minification where a constructor's own name may not) rebuild as `ctor`
 * after a worker hop. Every error class of ours registers itself next to its
 * definition. Internal.
 */
export function registerErrorClass(name: string, ctor: ErrorClass): void {
  classes.set(name, ctor);
}

/** Turn anything thrown into a {@link SerializedError}. Internal. */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (error === null || typeof error !== 'object') return { name: 'Error', message: String(error) };
  const e = error as Record<string, unknown>;
  const out: SerializedError = {
    name: typeof e.name === 'string' && e.name ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
  };
  const DOMExceptionCtor = (globalThis as { DOMException?: ErrorClass }).DOMException;
  const dom = DOMExceptionCtor !== undefined && error instanceof DOMExceptionCtor;
  if (dom) out.dom = true;
  else if (typeof e.code === 'string' || typeof e.code === 'number') out.code = String(e.code);
  if (typeof e.index === 'number') out.index = e.index;
  if (typeof e.stack === 'string') out.stack = e.stack;
  const base = classes.get('MedFusionError');
  if (base !== undefined && error instanceof base) out.ours = true;
  for (const key of Object.keys(e)) {
    if (BUILT_IN.has(key)) continue;
    const v = e[key];
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      out.fields ??= {};
      out.fields[key] = v;
    }
  }
  if (e.cause !== undefined && depth < MAX_CAUSE_DEPTH)
    out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/**
 * Rebuild an error sent by {@link serializeError}: the same registered class
 * (so `instanceof` holds) with its code, index, fields, stack and cause; a
 * `MedFusionError` for one of ours whose class is not registered here; the
 * platform's `DOMException`, `TypeError`, `RangeError`, ... otherwise. Internal.
 */
export function deserializeError(s: SerializedError): Error {
  const ctor = rebuildClass(s);
  const err: Error =
    ctor !== undefined
      ? (Reflect.construct(Error, [s.message], ctor) as Error)
      : s.dom
        ? newDomException(s)
        : new (platformClass(s.name))(s.message);
  if (!s.dom) {
    err.name = s.name;
    if (s.code !== undefined) (err as { code?: string }).code = s.code;
  }
  if (s.index !== undefined) (err as { index?: number }).index = s.index;
  if (s.fields) Object.assign(err, s.fields);
  if (s.stack !== undefined) err.stack = s.stack;
  if (s.cause !== undefined) (err as { cause?: unknown }).cause = deserializeError(s.cause);
  return err;
}

/** The registered class to rebuild `s` as, if any: by name, with one of our codes. */
function rebuildClass(s: SerializedError): ErrorClass | undefined {
  if (!isErrorCode(s.code)) return undefined;
  return classes.get(s.name) ?? (s.ours ? classes.get('MedFusionError') : undefined);
}

function newDomException(s: SerializedError): Error {
  const Ctor = (globalThis as { DOMException?: new (m: string, n: string) => Error }).DOMException;
  if (Ctor) return new Ctor(s.message, s.name);
  const err = new Error(s.message);
  err.name = s.name;
  return err;
}

const PLATFORM: Record<string, new (message: string) => Error> = {
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

function platformClass(name: string): new (message: string) => Error {
  return PLATFORM[name] ?? Error;
}

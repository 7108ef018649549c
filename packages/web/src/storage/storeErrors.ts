import { MedFusionError } from '@medfusion/core';

/** Codes a {@link StoreError} carries. */
export type StoreErrorCode =
  /** The browser refused the write even after evicting (QuotaExceededError). */
  | 'QUOTA_EXCEEDED'
  /** One entry is larger than the store's byte budget. */
  | 'ENTRY_TOO_LARGE'
  /** The storage API is missing here (no OPFS, no IndexedDB). */
  | 'STORE_UNAVAILABLE'
  /** The store's worker stopped (terminated or crashed). */
  | 'STORE_WORKER_GONE'
  /** A store call did not settle within the store's `callTimeoutMs`. */
  | 'STORE_TIMEOUT'
  /** Any other storage failure; `cause` holds the platform error. */
  | 'STORE_FAILED';

/**
 * A persistent-store failure. Branch on `code`; `name` survives worker
 * boundaries as `StoreError`.
 */
export class StoreError extends MedFusionError {
  declare readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}

/** True for the platform's QuotaExceededError and for StoreError('QUOTA_EXCEEDED'). */
export function isQuotaError(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown } | null | undefined;
  return e?.name === 'QuotaExceededError' || e?.code === 'QUOTA_EXCEEDED';
}

/** Plain data that carries an error across `postMessage`. */
export interface SerializedError {
  /** Error name. */
  name: string;
  /** Error message. */
  message: string;
  /** MedFusion code, when any. */
  code?: string;
}

/** Turn any thrown value into {@link SerializedError}. */
export function serializeError(err: unknown): SerializedError {
  const e = err as { name?: unknown; message?: unknown; code?: unknown } | null;
  const out: SerializedError = {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(err),
  };
  if (typeof e?.code === 'string') out.code = e.code;
  return out;
}

/** Rebuild an error sent by {@link serializeError}: a StoreError when it had a store code. */
export function deserializeError(s: SerializedError): Error {
  if (
    s.code === 'QUOTA_EXCEEDED' ||
    s.code === 'ENTRY_TOO_LARGE' ||
    s.code === 'STORE_UNAVAILABLE' ||
    s.code === 'STORE_WORKER_GONE' ||
    s.code === 'STORE_TIMEOUT' ||
    s.code === 'STORE_FAILED'
  ) {
    return new StoreError(s.code, s.message);
  }
  if (s.name === 'QuotaExceededError') return new StoreError('QUOTA_EXCEEDED', s.message);
  if (s.name === 'TypeError') return new TypeError(s.message);
  if (s.name === 'RangeError') return new RangeError(s.message);
  if (s.code === 'CLOSED') return new MedFusionError('CLOSED', s.message);
  const err = new Error(s.message);
  err.name = s.name;
  return err;
}

import type { ErrorCode } from '../errorCodes.js';
import { registerErrorClass } from '../errorRegistry.js';
import { MedFusionError } from '../errors.js';

/**
 * Codes a {@link StoreError} carries: `QUOTA_EXCEEDED`, `ENTRY_TOO_LARGE`,
 * `STORE_UNAVAILABLE`, `STORE_WORKER_GONE`, `STORE_TIMEOUT`, `STORE_FAILED`,
 * `ENCRYPTION_KEY_REQUIRED`
 * (each explained in {@link ErrorCode}).
 */
export type StoreErrorCode = Extract<
  ErrorCode,
  | 'QUOTA_EXCEEDED'
  | 'ENTRY_TOO_LARGE'
  | 'STORE_UNAVAILABLE'
  | 'STORE_WORKER_GONE'
  | 'STORE_TIMEOUT'
  | 'STORE_FAILED'
  | 'ENCRYPTION_KEY_REQUIRED'
>;

/**
 * A persistent-store failure, of every store on disk (OPFS, IndexedDB, LMDB).
 * Branch on `code`; an error thrown in the OPFS worker arrives on the page as
 * a `StoreError` too.
 */
export class StoreError extends MedFusionError {
  /** What went wrong, one of {@link StoreErrorCode}. */
  declare readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}
registerErrorClass('StoreError', StoreError);

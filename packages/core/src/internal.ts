/**
 * Internal entry of @medfusion/core (`@medfusion/core/internal`): helpers
 * @medfusion/web shares with core so that each lives once. Not public API: no
 * stability promise, not documented for users.
 */

// --- errors: codes, the one serializer for every worker boundary (task "errors") ---
export { ERROR_CODES, isErrorCode } from './errorCodes.js';
export type { ErrorClass, SerializedError } from './errorRegistry.js';
export { deserializeError, registerErrorClass, serializeError } from './errorRegistry.js';
// --- persistent stores: key/value checks (task "errors"; isQuotaError is public) ---
export { checkStoreKey, checkStoreValue } from './persistence/storeChecks.js';

// @medfusion/core/internal — helpers shared by MedFusion's own packages (web, tests).
//
// NOT PUBLIC API. No semver promise: anything here may change or disappear in any
// release, patch releases included. Applications import from '@medfusion/core'.
// Each helper lives once, here or behind one of these re-exports; packages never copy it.

export { sampleBilinear } from './augment/bilinear.js';
// --- augmentation: checks shared by the CPU path and web's GPU path ---
export { addNoise, NoiseStream } from './augment/gaussianNoise.js';
export { checkNormalizeChannels } from './augment/normalize.js';
// --- value rendering, option checks, plan following, removed plumbing ---
export { checkPlan } from './dataset/Dataset.js';
export { loadPhasesOf, reportsLoadPhases } from './dataset/LoadPhases.js';
export { takeDemandFirst } from './dataset/Speculation.js';
export { AccessPredictor } from './engine/accessPredictor.js';
// --- error codes and the one serializer for every worker boundary ---
export { ERROR_CODES, isErrorCode } from './errorCodes.js';
export type { ErrorClass, SerializedError } from './errorRegistry.js';
export { deserializeError, registerErrorClass, serializeError } from './errorRegistry.js';
export { describe } from './errors.js';
// --- toFloat32 (collate on the CPU, web's UploadRing on the GPU): one resolution ---
export type { ToFloat32Plan } from './loader/resolveToFloat32.js';
export { resolveToFloat32 } from './loader/resolveToFloat32.js';
// --- persistent stores: key/value checks (isQuotaError is public), retention, the sealed format ---
export type { RetentionSettings } from './persistence/retention.js';
export {
  checkRetentionOptions,
  SweepTimer,
  sweepInterval,
  wallClock,
} from './persistence/retention.js';
export {
  NONCE_BYTES,
  SEALED_OVERHEAD,
  SEALED_V1,
  sealedAad,
  TAG_BYTES,
} from './persistence/sealedFormat.js';
export {
  checkPersistentStore,
  checkStoreKey,
  checkStoreValue,
} from './persistence/storeChecks.js';
export { type StoreCounters, storeCounters } from './persistence/storeCounters.js';
export type { WriteBehindStats, WriteFn } from './persistence/writeBehindQueue.js';
export { WriteBehindQueue } from './persistence/writeBehindQueue.js';
export { CachedPlan } from './plan/CachedPlan.js';
export { isEpochPlan, slicePlan, toEpochPlan } from './plan/EpochPlan.js';
export { findInPlan } from './plan/findInPlan.js';
export type { ResolvedErrorPolicy } from './reliability/errorPolicy.js';
export { resolveErrorPolicy } from './reliability/errorPolicy.js';
export type { ResolvedRetryOptions } from './reliability/retry.js';
export { isRetryable, resolveRetryOptions } from './reliability/retry.js';
// --- the shard format's tar layout, for the writers (the CLI, web's packFiles, the demo's generator) ---
export type { ImageKind } from './shards/imageCheck.js';
export { checkJpeg, checkPng, sniffImage } from './shards/imageCheck.js';
export type { LabelledRow, LabelledRows } from './shards/labelledRows.js';
export { readLabelledRows } from './shards/labelledRows.js';
export { checkUniqueKeys, sampleKey } from './shards/sampleKey.js';
export {
  checkUstarHeader,
  checkUstarLayout,
  isPlainUstarName,
  paddedSize,
  TAR_BLOCK,
  USTAR_NAME_BYTES,
  ustarLayout,
  writeUstarHeader,
} from './shards/tarLayout.js';
export { abortReason, onAbort, raceAbort, throwIfAborted } from './util/abort.js';
export type { UntrustedSizeLimits } from './util/checkUntrustedSize.js';
export { checkUntrustedSize, untrustedSizeError } from './util/checkUntrustedSize.js';
export { crc32 } from './util/crc32.js';
export { DEFAULT_MISSING_VALUES } from './util/missingValues.js';
export type { Check } from './util/validate.js';
export {
  abortSignal,
  arrayOf,
  badRange,
  badType,
  bool,
  clock,
  fn,
  func,
  index,
  nonEmptyString,
  nonNegativeFinite,
  nonNegativeInt,
  nonNegativeMs,
  number,
  object,
  oneOfValues,
  optionsBag,
  positiveBytes,
  positiveFinite,
  positiveInt,
  positiveMs,
  rejectUnknownOptions,
  showValue,
  string,
  withDefault,
} from './util/validate.js';

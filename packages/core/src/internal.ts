// @medfusion/core/internal — helpers shared by MedFusion's own packages (web, tests).
//
// NOT PUBLIC API. No semver promise: anything here may change or disappear in any
// release, patch releases included. Applications import from '@medfusion/core'.
// Each helper lives once, here or behind one of these re-exports; packages never copy it.

// --- layout: value rendering, option checks, plan following, removed plumbing ---
export { checkPlan } from './dataset/Dataset.js';
export { findInPlan } from './dataset/findInPlan.js';
export { AccessPredictor } from './engine/accessPredictor.js';
export { describe } from './errors.js';
export type { WriteBehindStats, WriteFn } from './persistence/writeBehindQueue.js';
export { WriteBehindQueue } from './persistence/writeBehindQueue.js';
export type { ResolvedErrorPolicy } from './reliability/errorPolicy.js';
export { resolveErrorPolicy } from './reliability/errorPolicy.js';
export { isRetryable } from './reliability/retry.js';
export { abortReason, raceAbort, throwIfAborted } from './util/abort.js';
export { rejectUnknownOptions, showValue } from './util/validate.js';

// --- errors: store key/value checks, quota detection (task "errors") ---

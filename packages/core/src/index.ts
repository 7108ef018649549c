// @medfusion/core — platform-neutral caching, prefetching and loading.
export type { AbortControllerLike, AbortSignalLike } from './abort.js';
export { AbortError, createAbortController } from './abort.js';
export type { Clock, TimerHandle } from './Clock.js';
export { flushMicrotasks, ManualClock, systemClock } from './Clock.js';
export type { Dataset, GetOptions, Loader, PlanAware } from './Dataset.js';
export { fromArray, fromLoader, isPlanAware } from './Dataset.js';
export type { Executor } from './Executor.js';
export { ClosedError, LoadError, LoadTimeoutError, MedFusionError } from './errors.js';
export type { PersistentStore, StoreUsage, StoreValue } from './PersistentStore.js';

/**
 * How a configuration of the caching engine runs its loads and treats their
 * callers. The engine's own (`CachingEngine`, `PrefetchDataset`, the
 * factory's strategies) is {@link ENGINE_LOADS}; `CachedDataset` keeps the
 * reference's `CachedDataset` semantics with {@link HELD_LOADS}. Internal:
 * handed over under the {@link LOAD_POLICY} key of the options object, which
 * no public options type names.
 */
export interface LoadPolicy<T> {
  /**
   * Call the dataset's `get` directly instead of through an executor: a
   * synchronous answer is returned synchronously, a synchronous throw is
   * thrown to the caller, and a load gets a signal only when its first caller
   * passed one (such a load is never aborted).
   */
  readonly direct: boolean;
  /** Abort a load once every caller waiting for it has left; the next caller starts afresh. */
  readonly abortAbandoned: boolean;
  /** Hand the loader's errors to the callers as thrown (not wrapped in `LoadError`). */
  readonly rawErrors: boolean;
  /** Bound loads and waits by `loadTimeoutMs`; false: unbounded (no timers). */
  readonly timeouts: boolean;
  /** Whether a loaded sample may be held in memory (`cacheImages` / `cacheTabular`); undefined: all may. */
  readonly admits: ((value: T) => boolean) | undefined;
}

/** The options key a configuration passes its {@link LoadPolicy} under. */
export const LOAD_POLICY: unique symbol = Symbol('medfusion.loadPolicy');

/** The caching engine's loads: on the executor, bounded, errors wrapped, loads go on for the cache. */
export const ENGINE_LOADS: LoadPolicy<unknown> = {
  direct: false,
  abortAbandoned: false,
  rawErrors: false,
  timeouts: true,
  admits: undefined,
};

/** The reference `CachedDataset`'s loads: the dataset's own answers, unbounded, aborted when abandoned. */
export const HELD_LOADS: LoadPolicy<unknown> = {
  direct: true,
  abortAbandoned: true,
  rawErrors: true,
  timeouts: false,
  admits: undefined,
};

/** The policy an options object carries, else the engine's. */
export function loadPolicyOf<T>(options: object): LoadPolicy<T> {
  return (options as { [LOAD_POLICY]?: LoadPolicy<T> })[LOAD_POLICY] ?? ENGINE_LOADS;
}

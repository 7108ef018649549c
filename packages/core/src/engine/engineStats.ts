import type { LoadPhaseStats } from '../dataset/LoadPhases.js';
import type { AccessPlan } from '../plan/AccessPlan.js';
import type { EngineCounters } from './EngineCounters.js';
import type { EngineMemory } from './EngineMemory.js';
import type { EngineTuning } from './EngineTuning.js';
import type { EngineStats } from './engineOptions.js';
import type { LoadRunner } from './LoadRunner.js';

/** The parts of a caching engine its statistics are read from. */
export interface EngineParts<T> {
  /** The counters kept since the engine was made. */
  counters: EngineCounters;
  /** The cache and the prefetch buffer. */
  memory: EngineMemory<T>;
  /** The knobs in force and the load latencies. */
  tuning: EngineTuning;
  /** The loads in flight. */
  runner: LoadRunner<T>;
  /** The current plan, if any. */
  plan: AccessPlan | undefined;
  /** Where the source's loads spent their time, when its executor or dataset reports it. */
  loadPhases: LoadPhaseStats | undefined;
}

/** A snapshot of a caching engine's statistics, including the eviction policy in force. */
export function engineStats<T>({
  counters,
  memory,
  tuning,
  runner,
  plan,
  loadPhases,
}: EngineParts<T>): EngineStats {
  return counters.snapshot({
    plan,
    cacheSize: memory.cacheSize,
    keySpace: memory.keySpace,
    size: memory.cache.size,
    evictions: memory.cache.evictions,
    bytes: memory.bytes,
    maxBytes: memory.maxBytes,
    inFlight: runner.active,
    prefetchInFlight: runner.prefetchLoading,
    buffered: memory.buffered,
    evictionPolicy: memory.planEviction && plan !== undefined ? 'belady' : 'lru',
    tuning: tuning.stats(),
    loadLatency: tuning.latencies.stats(),
    loadPhases,
  });
}

import { type ErrorCode, MedFusionError } from '@medfusion/core';
import { registerErrorClass, type SerializedError } from '@medfusion/core/internal';

/**
 * A worker died (closed itself, threw at top level, failed to start, or stopped
 * answering) while loading sample `index`, and the one retry on a fresh worker
 * died too — or the pool could not start workers at all. Code `WORKER_CRASHED`.
 */
export class WorkerCrashedError extends MedFusionError {
  /** Why the last worker that held this call was declared dead. */
  readonly reason: string;
  constructor(index: number, reason: string) {
    super('WORKER_CRASHED', `Loading sample ${index} failed: worker crashed (${reason})`, {
      index,
    });
    this.name = 'WorkerCrashedError';
    this.reason = reason;
  }
}
registerErrorClass('WorkerCrashedError', WorkerCrashedError);

/**
 * Watched work made no progress for `idleMs` (at least the watchdog's
 * `stallMs`) while at `stage`: what a `StallWatchdog` rejects with, so a hang
 * becomes an error that says where it hung. Code `STALLED`.
 */
export class StallError extends MedFusionError {
  /** The stage the work last reported before it stalled. */
  readonly stage: string;
  /** Milliseconds without progress when the watchdog gave up. */
  readonly idleMs: number;
  /** The error for work that stalled at `stage` after `idleMs` without progress. */
  constructor(stage: string, idleMs: number) {
    super('STALLED', `no progress for ${Math.round(idleMs)} ms while ${stage}`);
    this.name = 'StallError';
    this.stage = stage;
    this.idleMs = idleMs;
  }
}
registerErrorClass('StallError', StallError);

/**
 * The user's loader threw inside a worker something that is not one of our
 * errors (ours arrive as their own class, e.g. `LoadError`, `AbortError`). It
 * carries the original `name`, `message` and `stack` (from the worker), the
 * loader's own `code` when it set one (a string outside {@link ErrorCode}),
 * else `LOAD_FAILED`, and the sample `index`.
 */
export class WorkerLoadError extends MedFusionError<ErrorCode | (string & {})> {
  /** The stack captured in the worker (also used as this error's `stack`). */
  readonly remoteStack: string | undefined;
  constructor(index: number, remote: SerializedError) {
    // The loader's own code is kept as it is (e.g. 'BAD_PNG'), outside our union.
    super(remote.code ?? 'LOAD_FAILED', remote.message, { index });
    this.name = remote.name;
    this.remoteStack = remote.stack;
    this.stack = `${remote.stack ?? `${remote.name}: ${remote.message}`}\n    (loading sample ${index} in a Web Worker)`;
  }
}

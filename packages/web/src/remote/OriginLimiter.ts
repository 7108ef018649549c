import { ClosedError, type Speculation } from '@medfusion/core';
import { abortReason, onAbort, positiveInt, takeDemandFirst } from '@medfusion/core/internal';

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  /** Set for a speculative request: it waits behind demand requests until promoted. */
  speculation: Speculation | undefined;
  /** Stops watching `signal` (when the waiter gets a slot or is rejected). */
  unwatch: () => void;
}

interface OriginSlot {
  active: number;
  queue: Waiter[];
}

/**
 * Caps concurrent requests per origin (scheme + host + port), so a prefetcher
 * never floods one bucket or CDN. Requests beyond the cap wait: a freed slot
 * goes to the oldest demand request (no speculation, or a promoted one), else
 * to the oldest speculative one. Sources share {@link defaultOriginLimiter}
 * unless given their own.
 *
 * @example
 * const limiter = new OriginLimiter(4);
 * const release = await limiter.acquire('https://bucket.example', signal);
 * try { await fetch(url, { signal }); } finally { release(); }
 */
export class OriginLimiter {
  /** Most requests in flight per origin. */
  readonly perOrigin: number;
  private readonly slots = new Map<string, OriginSlot>();

  constructor(perOrigin = 6) {
    this.perOrigin = positiveInt('perOrigin', perOrigin);
  }

  /** Requests in flight to `origin` right now. */
  active(origin: string): number {
    return this.slots.get(origin)?.active ?? 0;
  }

  /**
   * Wait for a slot on `origin`; resolves to the function that gives it back.
   * `speculation` marks a speculative request (a prefetch): it gets a slot
   * only when no demand request waits for one.
   */
  acquire(origin: string, signal?: AbortSignal, speculation?: Speculation): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let slot = this.slots.get(origin);
    if (!slot) {
      slot = { active: 0, queue: [] };
      this.slots.set(origin, slot);
    }
    if (slot.active < this.perOrigin) {
      slot.active++;
      return Promise.resolve(this.releaser(origin, slot));
    }
    const s = slot;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, speculation, unwatch: () => {} };
      if (signal) {
        waiter.unwatch = onAbort(signal, () => {
          const i = s.queue.indexOf(waiter);
          if (i >= 0) s.queue.splice(i, 1);
          reject(abortReason(signal));
        });
      }
      s.queue.push(waiter);
    });
  }

  private releaser(origin: string, slot: OriginSlot): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = takeDemandFirst(slot.queue);
      if (next) {
        next.unwatch();
        next.resolve(this.releaser(origin, slot));
      } else {
        slot.active--;
        if (slot.active === 0) this.slots.delete(origin);
      }
    };
  }

  /** Reject everyone still waiting (the limiter stays usable). */
  rejectWaiting(reason: unknown = new ClosedError('OriginLimiter')): void {
    for (const slot of this.slots.values()) {
      for (const w of slot.queue.splice(0)) {
        w.unwatch();
        w.reject(reason);
      }
    }
  }
}

/** The limiter every source uses unless given another: 6 requests per origin, like browsers' HTTP/1.1 cap. */
export const defaultOriginLimiter = new OriginLimiter(6);

/**
 * Marks a load as speculative: started ahead of need (a prefetch) rather than
 * for a reader who waits for it (demand). Every queue of the pipeline (the
 * engine's, a worker pool's, an origin's request slots) starts the demand
 * work it holds before any speculative work. When a reader starts waiting for
 * a speculative load, its owner calls {@link Speculation.promote}: from then
 * on it counts as demand wherever it still waits. A queue reads `speculative`
 * when it picks what to start next, so promotion needs no event.
 *
 * @example
 * const speculation = new Speculation();
 * const sample = executor.run(7, signal, undefined, { speculation }); // queued after demand calls
 * speculation.promote(); // a reader now waits for sample 7: it goes before the other prefetches
 */
export class Speculation {
  private promoted = false;

  /** True until {@link promote} is called. */
  get speculative(): boolean {
    return !this.promoted;
  }

  /** A reader now waits for this load: treat it as demand from now on (idempotent). */
  promote(): void {
    this.promoted = true;
  }
}

/**
 * Remove and return the oldest entry of `queue` that is demand (no
 * speculation, or a promoted one), else the oldest entry; undefined when the
 * queue is empty. The rule of every queue that holds both kinds; allocates
 * nothing.
 */
export function takeDemandFirst<W extends { readonly speculation: Speculation | undefined }>(
  queue: W[],
): W | undefined {
  for (let i = 0; i < queue.length; i++) {
    const entry = queue[i] as W;
    if (entry.speculation?.speculative === true) continue;
    if (i === 0) return queue.shift();
    queue.copyWithin(i, i + 1);
    queue.length--;
    return entry;
  }
  return queue.shift();
}

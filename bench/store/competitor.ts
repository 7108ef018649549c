// The store bench's competitors' common shape: a timed put pass and a timed,
// checked read pass over the same keys, with a fixed number of operations in flight.

/** Run `fn(0..n-1)` with `concurrency` calls in flight; elapsed ms. */
async function pump(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        await fn(i);
      }
    }),
  );
  return performance.now() - t0;
}

/** One competitor of a round: a timed put pass and a timed read pass over `count` keys. */
export interface Competitor {
  name: string;
  /** Empty the store (untimed) before a put round. */
  reset(): Promise<void>;
  /** Write keys 0..count-1; ms. */
  putAll(count: number, bytes: number, concurrency: number, values: Uint8Array[]): Promise<number>;
  /** Read every key in `order`, checking each value; ms. */
  readAll(order: number[], bytes: number, concurrency: number): Promise<number>;
  dispose(): Promise<void>;
}

/** A competitor over a key-value API (the stores, idb-keyval and the plain-IndexedDB references). */
export function kvCompetitor(
  name: string,
  put: (k: string, v: Uint8Array) => Promise<unknown>,
  get: (k: string) => Promise<Uint8Array | undefined>,
  reset: () => Promise<void>,
  dispose: () => Promise<void>,
): Competitor {
  return {
    name,
    reset,
    dispose,
    putAll: (count, _bytes, concurrency, values) =>
      pump(count, concurrency, (i) => put(`k${i}`, values[i % values.length]!)),
    async readAll(order, bytes, concurrency) {
      let bad = 0;
      const ms = await pump(order.length, concurrency, async (n) => {
        const i = order[n]!;
        const v = await get(`k${i}`);
        if (!v || v.length !== bytes || v[0] !== (i % 16) + 1 || v[bytes - 1] !== (i % 16) + 1)
          bad++;
      });
      if (bad) throw new Error(`${name}: ${bad} reads returned wrong data`);
      return ms;
    },
  };
}

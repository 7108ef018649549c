// A scripted source for the prefetch / caching tests: every load stays pending
// until the test resolves or rejects it, so scheduling is observed step by step.
import type { Dataset, GetOptions } from '@medfusion/core';

/** One sample of the scripted source: a typed array so byte sizes are real. */
export interface Sample {
  index: number;
  data: Uint8Array;
}

interface Pending {
  resolve(value: Sample): void;
  reject(error: unknown): void;
}

export class ScriptedSource implements Dataset<Sample> {
  /** Every load started, in order. */
  readonly calls: number[] = [];
  /** Loads aborted through their signal. */
  readonly aborted: number[] = [];
  /** Most loads pending at once. */
  maxActive = 0;
  /** The concurrency the test expects at most (checked by drivers). */
  limit = Number.POSITIVE_INFINITY;
  private readonly pending = new Map<number, Pending[]>();
  private active = 0;

  constructor(
    readonly length: number,
    /** Bytes of each sample's payload. */
    readonly sampleBytes = 100,
  ) {}

  get(index: number, opts?: GetOptions): Promise<Sample> {
    this.calls.push(index);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    const signal: AbortSignal | undefined = opts?.signal;
    return new Promise<Sample>((resolve, reject) => {
      const entry: Pending = {
        resolve: (v) => {
          this.active--;
          resolve(v);
        },
        reject: (e) => {
          this.active--;
          reject(e);
        },
      };
      const list = this.pending.get(index) ?? [];
      list.push(entry);
      this.pending.set(index, list);
      signal?.addEventListener('abort', () => {
        const l = this.pending.get(index);
        const at = l?.indexOf(entry) ?? -1;
        if (at >= 0) {
          l!.splice(at, 1);
          this.aborted.push(index);
          entry.reject(signal.reason);
        }
      });
    });
  }

  /** Loads pending now. */
  get inFlight(): number {
    return this.active;
  }

  /** Indices with a load pending, in start order. */
  pendingIndices(): number[] {
    const out: number[] = [];
    for (const [k, l] of this.pending) for (let i = 0; i < l.length; i++) out.push(k);
    return out;
  }

  /** Finish the oldest pending load of `index` with its sample. */
  resolve(index: number): void {
    const entry = this.take(index);
    entry.resolve(sample(index, this.sampleBytes));
  }

  /** Fail the oldest pending load of `index`. */
  reject(index: number, error: unknown): void {
    this.take(index).reject(error);
  }

  /** Finish every pending load. */
  resolveAll(): void {
    for (const k of this.pendingIndices()) this.resolve(k);
  }

  /** How many loads of `index` were started. */
  loadsOf(index: number): number {
    return this.calls.filter((c) => c === index).length;
  }

  private take(index: number): Pending {
    const list = this.pending.get(index);
    const entry = list?.shift();
    if (!entry) throw new Error(`no pending load of ${index}`);
    if (list!.length === 0) this.pending.delete(index);
    return entry;
  }
}

/** The sample the scripted source yields for `index`. */
export function sample(index: number, bytes = 100): Sample {
  return { index, data: new Uint8Array(bytes).fill(index & 0xff) };
}

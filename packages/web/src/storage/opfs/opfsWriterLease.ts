import { withWebLock } from '../webLocks.js';

/**
 * The directory's writer lock (the Web Lock `medfusion-opfs:<dir>`), held as
 * a lease: {@link run} takes it when not held and keeps it afterwards, so a
 * stream of write batches pays one lock request, not one per batch; the
 * engine lets go with {@link release} at its group commit (or at once when
 * nothing waits to be flushed). Runs are serialized. Internal.
 */
export class WriterLease {
  private held: Promise<void> | undefined;
  private letGo: (() => void) | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  /** How many times the lock was taken (see WriterLock.taken). */
  taken = 0;

  /**
   * @param name the Web Lock's name
   * @param beforeLetGo run before the lock goes (the backend releases its exclusive handles)
   */
  constructor(
    private readonly name: string,
    private readonly beforeLetGo: () => Promise<void> = async () => {},
  ) {}

  /** Run `fn` holding the lock (taken first when not held); the lock stays held after. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const r = this.chain.then(async () => {
      await this.acquire();
      return fn();
    });
    this.chain = r.catch(() => {});
    return r;
  }

  /** Let go of the lock once every run queued so far has finished. */
  release(): Promise<void> {
    const r = this.chain.then(async () => {
      // Failing to close a handle must not keep the lock: the next writer's open reports it.
      if (this.letGo) await this.beforeLetGo().catch(() => {});
      const letGo = this.letGo;
      this.letGo = undefined;
      this.held = undefined;
      letGo?.();
    });
    this.chain = r;
    return r;
  }

  private acquire(): Promise<void> {
    if (!this.held) {
      const held = new Promise<void>((acquired, failed) => {
        withWebLock(
          this.name,
          () =>
            new Promise<void>((letGo) => {
              this.letGo = letGo;
              this.taken++;
              acquired();
            }),
        ).catch((err: unknown) => {
          if (this.held === held) this.held = undefined;
          failed(err);
        });
      });
      this.held = held;
    }
    return this.held;
  }
}

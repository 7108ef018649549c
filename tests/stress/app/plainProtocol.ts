// What the plain scenario's page and its training worker tell each other.

/** How the plain scenario gets its decode workers (and whether it hangs on purpose). */
export type PlainMode = 'hosted' | 'nested' | 'hang';

/** Page → training worker: how to get the decode workers, and how many samples to read. */
export interface PlainStart {
  /**
   * `hosted`: ask the page's WorkerHost; `nested`: start them in the training worker;
   * `hang`: hosted, then wait forever before the first batch (the harness's own test).
   */
  mode: PlainMode;
  /** The WorkerHost's port (used in `hosted` mode). */
  host: MessagePort;
  /** Samples of the epoch (0: the whole data set). */
  samples: number;
}

/** Training worker → page: the epoch's outcome. */
export interface PlainDone {
  /** Samples the DataLoader delivered. */
  delivered: number;
  /** Why the epoch failed, if it did. */
  error?: string;
}

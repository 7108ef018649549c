import type { SerializedError } from '@medfusion/core/internal';

/** Main thread → worker thread: load `index`, or abort call `abort`. Internal. */
export type ThreadRequest =
  | { type: 'run'; id: number; index: number; input: unknown }
  | { type: 'abort'; id: number };

/** Worker thread → main thread: the answer to call `id`. Internal. */
export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError };

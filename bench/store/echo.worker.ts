/// <reference lib="webworker" />
// Bench only: answers every message, so the page can time the hop of a write
// batch to a worker: cloned values get an empty answer, a transferred batch
// buffer is moved back (as OpfsStore's worker does for the next batch).
self.onmessage = (ev: MessageEvent<unknown>) => {
  const d = ev.data;
  if (d instanceof Uint8Array) self.postMessage(d, [d.buffer]);
  else self.postMessage(0);
};

/// <reference lib="webworker" />
// Bench only: answers every message with an empty one, so the page can time
// the hop of a write batch to a worker (structured clone against transfer).
self.onmessage = () => self.postMessage(0);

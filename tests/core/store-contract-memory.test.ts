// MemoryStore under the store contract (tests/stores/contract.ts), in Node.
import { MemoryStore } from '@medfusion/core';
import { storeContract } from '../stores/contract';

const inMemory = 'MemoryStore holds nothing beyond the instance';

storeContract({
  name: 'MemoryStore',
  location: (tag) => tag,
  open: (_location, o = {}) =>
    new MemoryStore(o.maxBytes === undefined ? {} : { maxBytes: o.maxBytes }),
  remove: async () => {},
  tooLarge: 'RangeError',
  persistence: { unsupported: inMemory },
  raw: { unsupported: `${inMemory}: a deleted value is dropped from its Map for the collector` },
  corrupt: { unsupported: inMemory },
  crash: { unsupported: inMemory },
  twoInstances: { unsupported: inMemory },
  quota: { unsupported: 'no quota: memory only' },
  encryption: { unsupported: 'MemoryStore does not encrypt (nothing is at rest)' },
  retention: { unsupported: 'MemoryStore has no maxAge' },
  forget: { unsupported: 'MemoryStore has no forget' },
  spaceUsed: { unsupported: 'MemoryStore has no forget' },
  compactionPoint: async () => {},
});

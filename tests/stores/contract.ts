// The one contract every PersistentStore passes (docs/persistence.md, "What every store
// promises"): MemoryStore in Node, IdbStore and OpfsStore (each backend, plain and encrypted) in
// every browser engine, the LMDB store of @medfusion/node. A test file calls storeContract with
// its factory (tests/stores/storeFactory.ts); store test files keep only what is specific to
// their store. A case a store cannot run is declared by its factory and listed as skipped with
// the reason, never left out silently.

import { afterEach, describe, it } from 'vitest';
import { basicCases } from './contractBasics';
import { diskCases } from './contractDisk';
import { encryptionCases } from './contractEncryption';
import { remnantCases } from './contractRemnants';
import { retentionCases } from './contractRetention';
import type { ContractCase, ContractContext, StoreFactory } from './storeFactory';

/** Every case of the contract, in the order they run. */
export const contractCases: ContractCase[] = [
  ...basicCases,
  ...diskCases,
  ...encryptionCases,
  ...retentionCases,
  ...remnantCases,
];

/** Register the contract's cases for `factory` (one describe block). */
export function storeContract(factory: StoreFactory, timeoutMs = 120_000): void {
  describe(`${factory.name}: the store contract`, () => {
    const used: string[] = [];
    afterEach(async () => {
      for (const l of used.splice(0)) await factory.remove(l).catch(() => {});
    });
    const ctx: ContractContext = {
      location(tag) {
        const l = factory.location(tag);
        used.push(l);
        return l;
      },
    };
    for (const c of contractCases) {
      const reason = c.skip?.(factory) ?? '';
      if (reason) it.skip(`${c.name} (not run: ${reason})`, () => {});
      else it(c.name, () => c.run(factory, ctx), timeoutMs);
    }
  });
}

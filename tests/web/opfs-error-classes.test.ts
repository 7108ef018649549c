import { ClosedError } from '@medfusion/core';
import { OpfsStore, StoreError } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dir = `test-opfs-errors-${Math.random().toString(36).slice(2)}`;
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(dir, { recursive: true }).catch(() => {});
});

describe('errors thrown in the OPFS worker', () => {
  it('a ClosedError thrown in the worker arrives as ClosedError', async () => {
    const store = new OpfsStore({ dir });
    await store.put('a', new Uint8Array([1, 2, 3]));
    const closing = store.close();
    // let close() send its message first, so the worker closes before it sees the clear
    for (let i = 0; i < 20; i++) await Promise.resolve();
    const late = store.clear().then(
      () => undefined,
      (e: unknown) => e,
    );
    await closing;
    const error = await late;
    expect(error).toBeInstanceOf(ClosedError);
    // the worker's own error (the page's would say "OpfsStore is closed")
    expect(error).toMatchObject({ code: 'CLOSED', message: 'OpfsStore worker is closed' });
  });

  it('a StoreError from the worker arrives as StoreError with its code', async () => {
    const store = new OpfsStore({ dir, maxBytes: 4096 });
    const error = await store.put('big', new Uint8Array(8192)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ name: 'StoreError', code: 'ENTRY_TOO_LARGE' });
    await store.close();
  });
});

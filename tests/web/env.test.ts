import { isCrossOriginIsolated } from '@medfusion/web';
import { expect, it } from 'vitest';

it('runs in a real browser with OPFS and workers', async () => {
  expect(typeof isCrossOriginIsolated()).toBe('boolean');
  expect(typeof Worker).toBe('function');
  const root = await navigator.storage.getDirectory();
  expect(root.kind).toBe('directory');
});

// Waits on the demo page's #status element, shared by the demo's e2e tests.
import type { Page } from 'playwright';
import { expect } from 'vitest';

/** Wait until the demo is ready to start (or failed), and check it did not fail. */
export async function waitReady(p: Page): Promise<void> {
  await p.waitForFunction(
    () => {
      const s = document.querySelector<HTMLElement>('#status');
      return s?.dataset.ready === 'true' || s?.dataset.state === 'error';
    },
    undefined,
    { timeout: 60_000 },
  );
  expect(await p.locator('#status').getAttribute('data-state')).not.toBe('error');
}

/**
 * Wait until a run ends: done, error or stopped (the caller checks which). A run that does not
 * end in `timeoutMs` fails with what the page showed then (status, epoch, stats, where samples
 * came from, the bottleneck line), so a stall says where it stalled.
 */
export async function waitRunEnd(p: Page, timeoutMs: number): Promise<void> {
  try {
    await p.waitForFunction(
      () => {
        const s = document.querySelector<HTMLElement>('#status')?.dataset.state;
        return s === 'done' || s === 'error' || s === 'stopped';
      },
      undefined,
      { timeout: timeoutMs },
    );
  } catch (error) {
    const shown = await p
      .evaluate(() =>
        ['#status', '#epoch', '#stats', '#origin', '#bottleneck'].map(
          (sel) =>
            `${sel}: ${document.querySelector(sel)?.textContent?.replace(/\s+/g, ' ').trim()}`,
        ),
      )
      .catch((e: unknown) => [`(the page did not answer: ${String(e)})`]);
    throw new Error(
      `the run did not end within ${timeoutMs} ms; the page showed:\n${shown.join('\n')}`,
      {
        cause: error,
      },
    );
  }
}

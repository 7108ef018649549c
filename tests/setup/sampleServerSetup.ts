/**
 * Vitest global setup (Node) for the reliability browser tests: only the sample
 * server (tests/setup/sampleServer.ts), provided as `sampleServer`.
 */
import type { TestProject } from 'vitest/node';
import { startSampleServer } from './sampleServer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The engine must measure the JS heap (gc() and performance.memory): Chromium's project. */
    preciseHeap?: boolean;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const samples = await startSampleServer();
  project.provide('sampleServer', samples.url);
  return () => samples.close();
}

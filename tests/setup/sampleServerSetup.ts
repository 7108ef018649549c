/**
 * Vitest global setup (Node) for the reliability browser tests: only the sample
 * server (tests/setup/sampleServer.ts), provided as `sampleServer`.
 */
import type { TestProject } from 'vitest/node';
import { startSampleServer } from './sampleServer.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const samples = await startSampleServer();
  project.provide('sampleServer', samples.url);
  return () => samples.close();
}

// Shared by the fault tests: URLs through the fault proxies (tests/setup/faultProxy.ts),
// their counters, and an error's cause chain.
import { inject } from 'vitest';

const { faults } = inject('dicom');
let next = 0;

/** A fresh scenario key, so each test has its own counters. */
function key(name: string): string {
  return `${name}${++next}x${Math.floor(Math.random() * 1e9)}`;
}

/** A DICOMweb root through the Orthanc fault proxy with `fault`, and its stats. */
export function faultyPacs(fault: string): { root: string; stats: () => Promise<FaultStats> } {
  const k = key('pacs');
  return {
    root: `${faults.orthanc}/${k}/${fault}/dicom-web`,
    stats: () => statsOf(faults.orthanc, k),
  };
}

/** A base URL of the fixture files through the file fault proxy with `fault`, and its stats. */
export function faultyFiles(fault: string): { base: string; stats: () => Promise<FaultStats> } {
  const k = key('files');
  return { base: `${faults.files}/${k}/${fault}/plain/`, stats: () => statsOf(faults.files, k) };
}

/** Counters of one scenario key. */
export interface FaultStats {
  /** Requests of the key. */
  requests: number;
  /** Requests of frames or `.dcm` files. */
  faultProne: number;
  /** Answers the server sent compressed. */
  gzipped: number;
}

async function statsOf(proxy: string | null, k: string): Promise<FaultStats> {
  return (await fetch(`${proxy}/__stats/${k}`)).json();
}

/** `error` and its causes, each as `Name CODE: message`. */
export function causes(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
    const x = e as { name?: string; code?: string; message?: string };
    out.push(`${x.name} ${x.code ?? ''}: ${x.message ?? String(e)}`);
    if (out.length > 8) break;
  }
  return out;
}

/** What `promise` rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

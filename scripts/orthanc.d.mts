// Types of scripts/orthanc.mjs for the TypeScript tests and bench that import it.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A running Orthanc. */
export interface OrthancServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** DICOMweb root, `http://127.0.0.1:PORT/dicom-web` */
  dicomWeb: string;
  /** Store one Part 10 file (POST /instances). */
  upload(bytes: Uint8Array): Promise<void>;
  /** Stop the process and remove its storage. */
  stop(): Promise<void>;
  /** Kill the process and remove its storage, synchronously (for an `exit` handler). */
  kill(): void;
}
/** Whether Orthanc and its DICOMweb plugin are installed (never installs). */
export function orthancInstalled(): boolean;
/** Whether Orthanc and its DICOMweb plugin are installed (installing them when root). */
export function ensureOrthanc(): boolean;
/** Start Orthanc; resolves once its REST API answers. */
export function startOrthanc(): Promise<OrthancServer>;
/** Forward one request to `target` at `path` (default: the request's own) and pipe the answer back. */
export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  path?: string,
): void;

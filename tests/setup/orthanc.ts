/**
 * A throwaway Orthanc with its DICOMweb plugin (Node, for the dicom tests and
 * the dicom bench): installed with apt-get when root and missing (Debian
 * packages `orthanc`, `orthanc-dicomweb`), started on a free port with a
 * temporary storage folder and its own configuration, stopped by its PID.
 * Orthanc listens on every interface (no bind option) but with remote access
 * off it answers 401 to anyone but 127.0.0.1, which is what we talk to.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aptInstall } from '../../scripts/chromium.mjs';
import { freePort } from './freePort.js';

const BINARY = '/usr/sbin/Orthanc';
const PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';

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
}

/** Whether Orthanc and its DICOMweb plugin are installed (installing them when root). */
export function ensureOrthanc(): boolean {
  if (existsSync(BINARY) && existsSync(PLUGIN)) return true;
  aptInstall(['orthanc', 'orthanc-dicomweb']);
  return existsSync(BINARY) && existsSync(PLUGIN);
}

/** Start Orthanc; resolves once its REST API answers. */
export async function startOrthanc(): Promise<OrthancServer> {
  const dir = mkdtempSync(join(tmpdir(), 'medfusion-orthanc-'));
  const port = await freePort();
  const config = {
    Name: 'medfusion-test',
    StorageDirectory: join(dir, 'storage'),
    IndexDirectory: join(dir, 'index'),
    HttpPort: port,
    DicomServerEnabled: false,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    HttpCompressionEnabled: false,
    Plugins: [PLUGIN],
    DicomWeb: { Enable: true, Root: '/dicom-web/' },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const log = join(dir, 'orthanc.log');
  const child: ChildProcess = spawn(BINARY, [join(dir, 'config.json'), `--logfile=${log}`], {
    stdio: 'ignore',
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) process.kill(child.pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (exited) {
      const text = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      await stop();
      throw new Error(`Orthanc exited during start:\n${text}`);
    }
    try {
      const res = await fetch(`${url}/system`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (i > 150) {
      await stop();
      throw new Error('Orthanc did not answer within 15 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dicomWeb: `${url}/dicom-web`,
    async upload(bytes) {
      const res = await fetch(`${url}/instances`, {
        method: 'POST',
        body: new Blob([bytes as Uint8Array<ArrayBuffer>]),
      });
      const body = (await res.json()) as { Status?: string };
      if (!res.ok || body.Status !== 'Success') {
        throw new Error(
          `Orthanc refused an upload: HTTP ${res.status} ${JSON.stringify(body.Status)}`,
        );
      }
    },
    stop,
  };
}

// A throwaway Orthanc with its DICOMweb plugin (Node), shared by the dicom
// tests, the dicom bench and `npm run demo`: installed with apt-get when root
// and missing (Debian packages `orthanc`, `orthanc-dicomweb`), started on a
// free port with a temporary storage folder and its own configuration,
// stopped by its PID. Orthanc listens on every interface (no bind option) but
// with remote access off it answers 401 to anyone but 127.0.0.1, which is
// what we talk to. HTTP compression stays on, Orthanc's default (it gzips its
// answers to clients that accept it, as browsers do). Types: scripts/orthanc.d.mts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aptInstall } from './chromium.mjs';
import { freePort } from './freePort.mjs';

const BINARY = '/usr/sbin/Orthanc';
const PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';

/** Whether Orthanc and its DICOMweb plugin are installed (never installs). */
export function orthancInstalled() {
  return existsSync(BINARY) && existsSync(PLUGIN);
}

/** Whether Orthanc and its DICOMweb plugin are installed (installing them when root). */
export function ensureOrthanc() {
  if (orthancInstalled()) return true;
  aptInstall(['orthanc', 'orthanc-dicomweb']);
  return orthancInstalled();
}

/** Start Orthanc; resolves once its REST API answers. */
export async function startOrthanc() {
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
    Plugins: [PLUGIN],
    DicomWeb: { Enable: true, Root: '/dicom-web/' },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const log = join(dir, 'orthanc.log');
  const child = spawn(BINARY, [join(dir, 'config.json'), `--logfile=${log}`], {
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
  /** Last resort when the process exits without awaiting `stop` (synchronous). */
  const kill = () => {
    if (!exited && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
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
      const res = await fetch(`${url}/instances`, { method: 'POST', body: new Blob([bytes]) });
      const body = await res.json();
      if (!res.ok || body.Status !== 'Success') {
        throw new Error(
          `Orthanc refused an upload: HTTP ${res.status} ${JSON.stringify(body.Status)}`,
        );
      }
    },
    stop,
    kill,
  };
}

/**
 * Forward one request to `target` (`http://127.0.0.1:PORT`) at `path` and pipe
 * the answer back, as a gateway in front of Orthanc does. The `Host` and
 * `Authorization` headers are not passed on (Orthanc runs without
 * authentication); an unreachable target answers 502.
 */
export function forwardRequest(req, res, target, path = req.url ?? '/') {
  const to = new URL(target);
  const { authorization: _a, host: _h, ...headers } = req.headers;
  const upstream = request(
    { host: to.hostname, port: to.port, path, method: req.method, headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(err));
  });
  req.pipe(upstream);
}

/**
 * Start Debian's nginx (nginx-light) on 127.0.0.1 and a free port, serving
 * `root` with byte ranges, strong ETags, If-Match and CORS, from a generated
 * config whose pid, logs and temp paths all live in a temp directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../setup/freePort.js';

/** A running nginx. */
export interface Nginx {
  /** `http://127.0.0.1:PORT/` (trailing slash). */
  url: string;
  /** Stop it (SIGQUIT, then SIGKILL) and wait for the exit. */
  stop(): Promise<void>;
}

/** The nginx binary: `NGINX_PATH`, else /usr/sbin/nginx. */
export function nginxPath(): string {
  return process.env.NGINX_PATH || '/usr/sbin/nginx';
}

async function waitForPort(port: number, proc: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null)
      throw new Error(`nginx exited with ${proc.exitCode}; see ${logFile}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = new Socket();
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
      sock.connect(port, '127.0.0.1');
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nginx did not listen on 127.0.0.1:${port} within 15 s; see ${logFile}`);
}

const CORS = `
      add_header Access-Control-Allow-Origin "*" always;
      add_header Access-Control-Allow-Methods "GET, HEAD, OPTIONS" always;
      add_header Access-Control-Allow-Headers "Range, If-Match, If-None-Match, Cache-Control" always;
      add_header Access-Control-Expose-Headers "ETag, Content-Range, Accept-Ranges, Content-Length" always;
      add_header Cache-Control "no-cache" always;`;

/** Start nginx serving `root`; its working files go under `workDir`. */
export async function startNginx(root: string, workDir: string): Promise<Nginx> {
  const bin = nginxPath();
  if (!existsSync(bin)) {
    throw new Error(`nginx not found at ${bin}: apt-get install nginx-light (npm test does it)`);
  }
  mkdirSync(workDir, { recursive: true });
  const port = await freePort();
  const t = (name: string) => join(workDir, name);
  const conf = `
worker_processes 1;
daemon off;
pid ${t('nginx.pid')};
error_log ${t('error.log')} warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${t('client_body')};
  proxy_temp_path ${t('proxy')};
  fastcgi_temp_path ${t('fastcgi')};
  uwsgi_temp_path ${t('uwsgi')};
  scgi_temp_path ${t('scgi')};
  types { application/x-tar tar; application/json json; application/vnd.apache.parquet parquet; }
  default_type application/octet-stream;
  sendfile on;
  keepalive_timeout 30;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / {
      if ($request_method = OPTIONS) {${CORS}
        add_header Access-Control-Max-Age 600 always;
        return 204;
      }${CORS}
    }
  }
}
`;
  const confFile = t('nginx.conf');
  writeFileSync(confFile, conf);
  const proc = spawn(bin, ['-p', workDir, '-e', t('error.log'), '-c', confFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForPort(port, proc, t('error.log'));
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) {
          resolve();
          return;
        }
        const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGQUIT');
      }),
  };
}

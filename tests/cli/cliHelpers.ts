// Shared by the cli tests: run the built medfusion command, make input folders.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'fast-png';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The built bin (tests/cli/setup.ts builds it). */
export const BIN = join(repo, 'packages/cli/dist/bin.js');

/**
 * The command line of a `node` that runs `args` at a lower CPU priority (`nice -n 10`): the cli
 * project runs beside the browser projects, and what it proves (outputs, errors, bytes read) does
 * not depend on speed, while their timing tests and servers do.
 */
function niceNode(args: string[]): [string, string[]] {
  return ['nice', ['-n', '10', process.execPath, ...args]];
}

/** What a run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `medfusion <args>` to its end (`env`: variables set for it, beside the test's own). */
export function runCli(args: string[], cwd = repo, env: Record<string, string> = {}): CliRun {
  const r = spawnSync(...niceNode([BIN, ...args]), {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A module for `node --import` that prints the process's `rchar` on exit: bytes
 * read through read(2) and friends by all its threads (the kernel's count, in
 * /proc/self/io), not our code's.
 */
const COUNT_READS =
  "data:text/javascript,import{readFileSync}from'node:fs';process.on('exit',()=>{const t=readFileSync('/proc/self/io','utf8');process.stderr.write('RCHAR '+/rchar: (\\d+)/.exec(t)[1]+'\\n')})";

/** Run `medfusion <args>` to its end, with the bytes it read (`rchar`, see {@link COUNT_READS}). */
export function runCliCountingReads(args: string[]): CliRun & { rchar: number } {
  const r = spawnSync(...niceNode(['--import', COUNT_READS, BIN, ...args]), {
    cwd: repo,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 1 << 28,
  });
  const m = /RCHAR (\d+)/.exec(r.stderr);
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    rchar: m ? Number(m[1]) : Number.NaN,
  };
}

/** Start `medfusion <args>` without waiting (`env`: variables set for it, beside the test's own). */
export function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(...niceNode([BIN, ...args]), {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A fresh temporary folder (in the cli project's run folder, removed after it: tests/cli/setup.ts). */
export function tempDir(prefix = 'medfusion-cli-'): string {
  return mkdtempSync(join(process.env.MEDFUSION_CLI_TMP || tmpdir(), prefix));
}

/** Deterministic pseudo-random bytes (so PNGs do not compress to nothing). */
export function noise(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A grayscale PNG of `size`x`size` noise. */
export function png(seed: number, size = 16): Uint8Array {
  return encode({ width: size, height: size, data: noise(seed, size * size), channels: 1 });
}

/** Write `files` (relative path → bytes or text) under `root`, in the order given. */
export function writeTree(root: string, files: [string, Uint8Array | string][]): void {
  for (const [rel, body] of files) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
}

/**
 * A labelled image folder: `n` PNGs under `images/<cat|dog>/img<i>.png` and
 * `labels.csv` (image, label 0/1, age, site). Returns the files as written.
 */
export function labelledImages(root: string, n: number, size = 16): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const lines = ['image,label,age,site'];
  for (let i = 0; i < n; i++) {
    const cls = i % 3 === 0 ? 'dog' : 'cat';
    const rel = `${cls}/img${String(i).padStart(4, '0')}.png`;
    files.set(rel, png(i, size));
    lines.push(`${rel},${cls === 'dog' ? 1 : 0},${40 + (i % 37)},${i % 2 ? 'A' : 'B'}`);
  }
  writeTree(join(root, 'images'), [...files]);
  writeFileSync(join(root, 'labels.csv'), `${lines.join('\n')}\n`);
  return files;
}

/** Every file under `dir` (relative path → bytes), for byte-for-byte comparisons. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** Run python3 with `code` (standard library only), return stdout. */
export function python(code: string, args: string[] = []): string {
  const r = spawnSync('/usr/bin/python3', ['-c', code, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return r.stdout;
}

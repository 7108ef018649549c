import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';

/** cli-progress, loaded when a bar is drawn (on a terminal): lines and `--json` never load it. */
let cliProgressModule: typeof CliProgress | undefined;
function cliProgress(): typeof CliProgress {
  cliProgressModule ??= createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
  return cliProgressModule;
}

/** Where `medfusion` reports progress: a bar on a terminal, lines otherwise, JSON lines with `--json`. */
export interface Progress {
  /** A phase starts (`scan`: files checked; `write`: samples written) with its total. */
  phase(name: string, total: number, totalBytes?: number): void;
  /** `count` more done, `bytes` more bytes. */
  tick(count: number, bytes: number): void;
  /** A line of news (a shard written). */
  note(message: string): void;
  /** Stop drawing (the bar) before the final report. */
  stop(): void;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A progress bar (cli-progress) with counts, MB/s and ETA, for a terminal. */
class BarProgress implements Progress {
  private bar: CliProgress.SingleBar | undefined;
  private bytes = 0;
  private started = 0;
  phase(name: string, total: number): void {
    this.stop();
    this.bytes = 0;
    this.started = Date.now();
    const { SingleBar, Presets } = cliProgress();
    this.bar = new SingleBar(
      {
        format: `${name.padEnd(5)} [{bar}] {value}/{total} | {rate} | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
        stream: process.stderr,
      },
      Presets.shades_classic,
    );
    this.bar.start(total, 0, { rate: '0.0 MB/s' });
  }
  tick(count: number, bytes: number): void {
    this.bytes += bytes;
    const secs = Math.max(1e-3, (Date.now() - this.started) / 1000);
    this.bar?.increment(count, { rate: `${mb(this.bytes / secs)}/s` });
  }
  note(): void {}
  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}

/** Plain lines on stderr, at most one every 2 s per phase plus each phase's end. */
class LineProgress implements Progress {
  private name = '';
  private total = 0;
  private done = 0;
  private bytes = 0;
  private last = 0;
  phase(name: string, total: number): void {
    Object.assign(this, { name, total, done: 0, bytes: 0, last: Date.now() });
  }
  tick(count: number, bytes: number): void {
    this.done += count;
    this.bytes += bytes;
    const now = Date.now();
    if (this.done === this.total || now - this.last >= 2000) {
      this.last = now;
      process.stderr.write(`${this.name}: ${this.done}/${this.total} (${mb(this.bytes)})\n`);
    }
  }
  note(message: string): void {
    process.stderr.write(`${message}\n`);
  }
  stop(): void {}
}

/** JSON lines on stdout: `{"event":"progress",...}` at most every 0.5 s and at each phase's end. */
class JsonProgress implements Progress {
  private name = '';
  private total = 0;
  private totalBytes: number | undefined;
  private done = 0;
  private bytes = 0;
  private last = 0;
  phase(name: string, total: number, totalBytes?: number): void {
    Object.assign(this, { name, total, totalBytes, done: 0, bytes: 0, last: 0 });
    this.emit();
  }
  tick(count: number, bytes: number): void {
    this.done += count;
    this.bytes += bytes;
    const now = Date.now();
    if (this.done === this.total || now - this.last >= 500) {
      this.last = now;
      this.emit();
    }
  }
  note(message: string): void {
    process.stdout.write(`${JSON.stringify({ event: 'note', message })}\n`);
  }
  stop(): void {}
  private emit(): void {
    const line: Record<string, unknown> = {
      event: 'progress',
      phase: this.name,
      done: this.done,
      total: this.total,
      bytes: this.bytes,
    };
    if (this.totalBytes !== undefined) line.totalBytes = this.totalBytes;
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

/** The reporter for this process: JSON lines with `json`, a bar when stderr is a terminal, else lines. */
export function createProgress(json: boolean): Progress {
  if (json) return new JsonProgress();
  if (process.stderr.isTTY) return new BarProgress();
  return new LineProgress();
}

// The `medfusion` command: pack, list, merge, inspect, verify (run by bin.ts).
// Each command's modules are imported when it runs: a pack never loads the
// readers of inspect and verify, and start-up is part of every command's time.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MedFusionError } from '@medfusion/core/internal/tar';
import { parseImageSize, parseInteger, parseKeepTags, parseSize, parseSplit } from './args.js';
import type { PackOptions } from './pack/pack.js';
import { createProgress } from './progress.js';

const HELP = `medfusion: pack image data sets into WebDataset tar shards, inspect and verify them

  medfusion pack <folder|labels.csv> --out <dir> [options]
      --shard-size <size>        target shard size (default 64MB)
      --samples-per-shard <n>    cut shards by sample count instead
      --shuffle                  seeded shuffle (default: input order)
      --seed <n>                 seed of the shuffle and the split (default 0)
      --split <spec>             e.g. train=0.8,val=0.1,test=0.1 (stratified by label,
                                 DICOM grouped by patient)
      --images <dir>             CSV: folder the image column is relative to (default: the CSV's)
      --image-column <name>      CSV: image column (default image)
      --label-column <name>      CSV: label column (default label)
      --folder-labels            folder: label = first folder under the input (root/<label>/...)
      --keep-tags <k1,k2>        DICOM: header tags stored in each sample's .json (default none)
      --decode                   store decoded pixels (<key>.npy, uint8 HxWxC) instead of PNG/JPEG files
      --size <WxH>               with --decode: resize to W x H (default: keep; all images one size)
      --channels <1|3>           with --decode: 1 = luminance, 3 = RGB (default 1)
      --part <i/n>               write only the i-th of n parts (1 <= i <= n); join them with merge
      --listing <file>           folder: take the files and sizes from this listing (medfusion list)
                                 instead of walking the folder
      --json                     progress and result as JSON lines on stdout
  medfusion list <folder> --out <file> [--json]
                                 list the folder's images and sizes once, for pack --listing
  medfusion merge <part dirs...> --out <dir> [--json]
                                 join the outputs of pack --part 1/n ... n/n into one data set
  medfusion inspect <dir|manifest|url> [--samples <n>] [--json]
  medfusion verify <dir|manifest|url> [--json]

Exit codes: 0 ok, 1 bad data (the message names the file), 2 bad arguments, 130 interrupted.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg.version as string;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${HELP}\n`);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    process.stderr.write('\nstopping (Ctrl-C again to quit at once)...\n');
    controller.abort();
  });
  if (command === 'pack') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        out: { type: 'string', short: 'o' },
        'shard-size': { type: 'string', default: '64MB' },
        'samples-per-shard': { type: 'string' },
        shuffle: { type: 'boolean', default: false },
        seed: { type: 'string', default: '0' },
        split: { type: 'string' },
        images: { type: 'string' },
        'image-column': { type: 'string', default: 'image' },
        'label-column': { type: 'string', default: 'label' },
        'folder-labels': { type: 'boolean', default: false },
        'keep-tags': { type: 'string' },
        decode: { type: 'boolean', default: false },
        size: { type: 'string' },
        channels: { type: 'string', default: '1' },
        part: { type: 'string' },
        listing: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1)
      throw new TypeError('pack takes one input: a folder or a labels CSV');
    if (!values.out) throw new TypeError('pack needs --out <dir>');
    const options: PackOptions = {
      out: values.out,
      targetShardBytes: parseSize(values['shard-size']),
      shuffle: values.shuffle,
      seed: parseInteger('--seed', values.seed, 0),
      keepTags: parseKeepTags(values['keep-tags']),
      imageColumn: values['image-column'],
      labelColumn: values['label-column'],
      folderLabels: values['folder-labels'],
    };
    if (values['samples-per-shard'] !== undefined)
      options.samplesPerShard = parseInteger('--samples-per-shard', values['samples-per-shard'], 1);
    if (values.split !== undefined) options.splits = parseSplit(values.split);
    if (values.images !== undefined) options.images = values.images;
    if (values.listing !== undefined) options.listing = values.listing;
    if (values.part !== undefined)
      options.part = (await import('./pack/parts.js')).parsePart(values.part);
    if (values.decode) {
      const channels = parseInteger('--channels', values.channels, 1);
      if (channels !== 1 && channels !== 3)
        throw new RangeError(`--channels must be 1 or 3, got ${channels}`);
      options.decode = {
        channels,
        ...(values.size === undefined ? {} : parseImageSize(values.size)),
      };
    } else if (values.size !== undefined) {
      throw new TypeError('--size resizes decoded pixels: give --decode with it');
    }
    const { pack } = await import('./pack/pack.js');
    const progress = createProgress(values.json);
    const result = await pack(
      positionals[0] as string,
      options,
      progress,
      controller.signal,
    ).finally(() => progress.stop());
    if (values.json) process.stdout.write(`${JSON.stringify({ event: 'done', ...result })}\n`);
    else {
      const how = result.upToDate
        ? 'already complete'
        : options.part
          ? `packed part ${options.part.index}/${options.part.count} (join the parts with medfusion merge)`
          : result.resumed > 0
            ? `resumed: ${result.resumed} shards kept from the last run`
            : 'packed';
      process.stdout.write(
        `${how}: ${result.samples} samples in ${result.shards} shards, ${(result.bytes / 1e6).toFixed(1)} MB -> ${options.part ? options.out : `${options.out}/manifest.json`}${result.skipped ? ` (${result.skipped} files that are not PNG, JPEG or DICOM skipped)` : ''}\n`,
      );
    }
    return 0;
  }
  if (command === 'list') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { out: { type: 'string', short: 'o' }, json: { type: 'boolean', default: false } },
    });
    if (positionals.length !== 1) throw new TypeError('list takes one input: a folder');
    if (!values.out) throw new TypeError('list needs --out <file>');
    const { list } = await import('./list.js');
    const progress = createProgress(values.json);
    const r = await list(positionals[0] as string, values.out, progress, controller.signal).finally(
      () => progress.stop(),
    );
    if (values.json) process.stdout.write(`${JSON.stringify({ event: 'done', ...r })}\n`);
    else
      process.stdout.write(
        `listed ${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB -> ${values.out}${r.skipped ? ` (${r.skipped} files that are not PNG, JPEG or DICOM left out)` : ''}\n`,
      );
    return 0;
  }
  if (command === 'merge') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { out: { type: 'string', short: 'o' }, json: { type: 'boolean', default: false } },
    });
    if (!values.out) throw new TypeError('merge needs --out <dir>');
    const { merge } = await import('./merge.js');
    const progress = createProgress(values.json);
    const r = await merge(positionals, values.out, progress, controller.signal).finally(() =>
      progress.stop(),
    );
    if (values.json) process.stdout.write(`${JSON.stringify({ event: 'done', ...r })}\n`);
    else
      process.stdout.write(
        `${r.upToDate ? 'already complete' : `merged ${r.parts} parts`}: ${r.samples} samples in ${r.shards} shards, ${(r.bytes / 1e6).toFixed(1)} MB -> ${values.out}/manifest.json\n`,
      );
    return 0;
  }
  if (command === 'inspect' || command === 'verify') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        samples: { type: 'string', default: '3' },
      },
    });
    if (positionals.length !== 1)
      throw new TypeError(`${command} takes one data set: a folder, a manifest or a URL`);
    const target = positionals[0] as string;
    if (command === 'inspect') {
      const { formatInspect, inspect } = await import('./inspect.js');
      const r = await inspect(target, parseInteger('--samples', values.samples, 0));
      process.stdout.write(values.json ? `${JSON.stringify(r)}\n` : `${formatInspect(r)}\n`);
      return 0;
    }
    const { verify } = await import('./verify.js');
    const progress = createProgress(values.json);
    const r = await verify(target, progress).finally(() => progress.stop());
    if (values.json) process.stdout.write(`${JSON.stringify({ event: 'done', ...r })}\n`);
    else if (r.failures.length === 0)
      process.stdout.write(`ok: ${r.shards} shards, ${r.samples} samples verified (${r.where})\n`);
    else {
      for (const f of r.failures)
        process.stderr.write(
          `FAILED ${f.shard}${f.sample ? ` sample ${f.sample}` : ''}: ${f.message}\n`,
        );
      process.stderr.write(`${r.failures.length} problem(s) in ${r.where}\n`);
    }
    return r.failures.length === 0 ? 0 : 1;
  }
  throw new TypeError(`unknown command ${JSON.stringify(command)}; try medfusion --help`);
}

// A reader that stops early (`medfusion inspect … | head`): end quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof Error && error.name === 'AbortError') {
      process.stderr.write(
        'stopped: complete shards are kept; run the same command again to continue\n',
      );
      process.exitCode = 130;
    } else if (
      error instanceof TypeError ||
      error instanceof RangeError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      process.stderr.write(`medfusion: ${(error as Error).message}\n`);
      process.exitCode = 2;
    } else if (error instanceof MedFusionError) {
      process.stderr.write(`medfusion: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(
        `medfusion: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    }
  },
);

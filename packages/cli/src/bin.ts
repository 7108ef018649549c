#!/usr/bin/env node
// The `medfusion` entry. For `pack` and `list`, the pool's worker threads start loading at
// once, on the core the main thread leaves idle while it loads the command's
// modules (cli.ts and the library); then the command runs.
import { prestartWorkers } from './pack/prestartWorkers.js';

if (process.argv[2] === 'pack' || process.argv[2] === 'list') prestartWorkers();
await import('./cli.js');

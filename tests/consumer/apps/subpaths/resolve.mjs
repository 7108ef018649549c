// Node's own resolution of each specifier given as an argument: the file it
// resolves to (which must exist), then how many names the module exports when
// imported. Prints one JSON object: specifier → { file, exports } or
// { file, importError } or { resolveError }.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const result = {};
for (const specifier of process.argv.slice(2)) {
  let file;
  try {
    file = fileURLToPath(import.meta.resolve(specifier));
    if (!existsSync(file)) throw new Error(`resolves to ${file}, which is missing`);
    file = file.slice(file.indexOf('node_modules'));
  } catch (err) {
    result[specifier] = { resolveError: String(err).split('\n')[0] };
    continue;
  }
  try {
    result[specifier] = { file, exports: Object.keys(await import(specifier)).length };
  } catch (err) {
    result[specifier] = { file, importError: String(err).split('\n')[0] };
  }
}
console.log(JSON.stringify(result));

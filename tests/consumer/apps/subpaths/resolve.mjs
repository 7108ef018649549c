// Node's own resolution of each specifier given as an argument: the file it
// resolves to (which must exist) and how many names the module exports.
// Prints one JSON object: specifier → { file, exports } or { error }.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const result = {};
for (const specifier of process.argv.slice(2)) {
  try {
    const file = fileURLToPath(import.meta.resolve(specifier));
    if (!existsSync(file)) throw new Error(`resolves to ${file}, which is missing`);
    const exports = Object.keys(await import(specifier)).length;
    result[specifier] = { file: file.slice(file.indexOf('node_modules')), exports };
  } catch (err) {
    result[specifier] = { error: String(err).split('\n')[0] };
  }
}
console.log(JSON.stringify(result));

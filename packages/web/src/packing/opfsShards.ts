/** The origin of the URLs {@link opfsShards} makes: reserved (`.invalid`), never on a network. */
const OPFS_ORIGIN = 'https://opfs.invalid';

async function opfsFile(pathname: string): Promise<File | undefined> {
  const parts = decodeURIComponent(pathname)
    .split('/')
    .filter((p) => p !== '');
  const name = parts.pop();
  if (name === undefined) return undefined;
  try {
    let dir = await navigator.storage.getDirectory();
    for (const p of parts) dir = await dir.getDirectoryHandle(p);
    return await (await dir.getFileHandle(name)).getFile();
  } catch (error) {
    if (
      (error as DOMException).name === 'NotFoundError' ||
      (error as DOMException).name === 'TypeMismatchError'
    )
      return undefined;
    throw error;
  }
}

/**
 * A `fetch` over OPFS files for the URLs of {@link opfsShards}: `GET` with or
 * without one `Range: bytes=a-b`, answering 200/206/404/416 as a static file
 * server would, with an `ETag` of the file's size and modification time.
 */
async function fetchOpfs(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin !== OPFS_ORIGIN) {
    throw new TypeError(`opfsShards' fetch reads OPFS files only, not ${url.href}`);
  }
  request.signal.throwIfAborted();
  const file = await opfsFile(url.pathname);
  if (!file) return new Response(null, { status: 404, statusText: 'Not Found' });
  const etag = `"${file.size.toString(16)}-${file.lastModified.toString(16)}"`;
  const ifMatch = request.headers.get('If-Match');
  if (ifMatch !== null && ifMatch !== etag && ifMatch !== '*') {
    return new Response(null, { status: 412, headers: { ETag: etag } });
  }
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.get('Range') ?? '');
  if (!range) {
    return new Response(file, {
      status: 200,
      headers: { ETag: etag, 'Content-Length': String(file.size) },
    });
  }
  const size = file.size;
  let start = range[1] === '' ? size - Number(range[2]) : Number(range[1]);
  let end = range[1] === '' || range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
  start = Math.max(0, start);
  if (start > end || start >= size) {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  }
  end = Math.max(start, end);
  return new Response(file.slice(start, end + 1), {
    status: 206,
    headers: {
      ETag: etag,
      'Content-Range': `bytes ${start}-${end}/${size}`,
      'Content-Length': String(end - start + 1),
    },
  });
}

/**
 * Open a data set {@link packFiles} (or anything else) wrote into the OPFS
 * directory `dir`: the `manifestUrl` and `fetch` to give `WebDatasetSource.open`,
 * which then reads the shards with ranged reads of the OPFS files, offline.
 *
 * @example
 * const ds = await WebDatasetSource.open({ ...opfsShards('my-data'), transform: (s) => s.files });
 */
export function opfsShards(dir: string): {
  manifestUrl: string;
  fetch: typeof globalThis.fetch;
} {
  if (typeof dir !== 'string' || dir.split('/').every((p) => p === '')) {
    throw new TypeError(
      `dir must be an OPFS directory path like 'my-data', got ${JSON.stringify(dir)}`,
    );
  }
  const path = dir
    .split('/')
    .filter((p) => p !== '')
    .map(encodeURIComponent)
    .join('/');
  return { manifestUrl: `${OPFS_ORIGIN}/${path}/manifest.json`, fetch: fetchOpfs };
}

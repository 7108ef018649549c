// The two pages the stress harness opens, built once and served on 127.0.0.1 with the demo's
// data server: the demo itself (its pipeline in a training worker) and the plain page
// (tests/stress/app: one DataLoader epoch in a worker).
import { join } from 'node:path';
import { build, type PreviewServer, preview } from 'vite';
import { ARTIFACTS, generateSmallDataset, ROOT } from '../e2e/demoServer.js';

/** The pages, served. */
export interface StressApps {
  /** The demo's URL (ends in `/`), '' when not served. */
  demo: string;
  /** The plain page's URL (ends in `/`), '' when not served. */
  plain: string;
  /** Stop both servers. */
  close(): Promise<void>;
}

const DEMO_CONFIG = join(ROOT, 'demo', 'vite.config.ts');
const PLAIN_CONFIG = join(ROOT, 'tests', 'stress', 'app', 'vite.config.ts');

/** Build the demo into `outDir` (a folder of its own: the e2e tests own demo/dist). */
async function buildInto(configFile: string, outDir: string): Promise<void> {
  const env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production'; // a test runner's NODE_ENV=test must not leak into the build
  try {
    await build({
      configFile,
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = env;
  }
}

async function serve(configFile: string, outDir: string): Promise<PreviewServer> {
  return preview({
    configFile,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
}

/** Builds made by this process, by output folder: each page is built once per process. */
const built = new Map<string, Promise<void>>();

function buildOnce(configFile: string, outDir: string): Promise<void> {
  let done = built.get(outDir);
  if (!done) {
    done = buildInto(configFile, outDir);
    built.set(outDir, done);
    done.catch(() => built.delete(outDir));
  }
  return done;
}

/**
 * Generate the data set (`samples` samples), build the pages asked for (once per process) and
 * serve them. `demoDist`: serve that build of the demo instead of building it (e.g. one made from
 * an older commit). A page not asked for is not served (its URL is '').
 */
export async function startApps(
  samples: number,
  pages: { demo: boolean; plain: boolean },
  demoDist?: string,
): Promise<StressApps> {
  process.env.MEDFUSION_DEMO_DATA = generateSmallDataset(samples);
  const demoOut = demoDist ?? join(ARTIFACTS, 'stress', 'demo');
  const plainOut = join(ARTIFACTS, 'stress', 'plain');
  const servers: PreviewServer[] = [];
  const url = (s: PreviewServer) => {
    const u = s.resolvedUrls?.local[0];
    if (!u) throw new Error('a preview server has no URL');
    return u.endsWith('/') ? u : `${u}/`;
  };
  try {
    let demo = '';
    let plain = '';
    if (pages.demo) {
      if (!demoDist) await buildOnce(DEMO_CONFIG, demoOut);
      const server = await serve(DEMO_CONFIG, demoOut);
      servers.push(server);
      demo = url(server);
    }
    if (pages.plain) {
      await buildOnce(PLAIN_CONFIG, plainOut);
      const server = await serve(PLAIN_CONFIG, plainOut);
      servers.push(server);
      plain = url(server);
    }
    return {
      demo,
      plain,
      close: async () => {
        await Promise.all(servers.map((s) => s.close()));
      },
    };
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw error;
  }
}

/// <reference types="vitest/config" />
import { defaultClientConditions, defaultServerConditions, defineConfig } from 'vite';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { chromiumArgs as launchArgs } from './scripts/chromium.mjs';
import { chromiumDirect, firefoxDirect } from './tests/setup/directProvider.ts';
import { otherEnginesRequested } from './tests/setup/engines.ts';
import { webkitgtk } from './tests/setup/webkitProvider.ts';

// Workspace packages resolve to their TypeScript source through this export
// condition, so neither the tests nor the demo need a build step.
const SOURCE = '@medfusion/source';

/** Every launch's flags (scripts/chromium.mjs), and WebGPU on SwiftShader for the GPU tests. */
const chromiumArgs = [
  ...launchArgs,
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
];

/** What a browser project asks of its engines. */
interface EngineOptions {
  /** Chromium flags beyond chromiumArgs. */
  chromiumArgs?: string[];
  /**
   * Answer navigator.storage.persist()'s permission prompt (granted), where the engine asks the
   * user (Firefox); false leaves it unanswered, as a user who ignores it would.
   */
  answerPersistPrompt?: boolean;
}

/**
 * Chromium (Debian's, CHROMIUM_PATH overrides): the browser projects' first engine, started
 * headless on the page by tests/setup/directProvider.ts, no automation (see that file).
 */
const chromium = ({ chromiumArgs: extraArgs = [] }: EngineOptions = {}) => ({
  enabled: true,
  headless: true,
  screenshotFailures: false,
  provider: chromiumDirect({ args: [...chromiumArgs, ...extraArgs] }),
  instances: [{ browser: 'chromium' as const }],
});

/**
 * Firefox: Debian's firefox-esr (FIREFOX_PATH overrides), started headless on the page by
 * tests/setup/directProvider.ts, no automation (Playwright's WebDriver BiDi session cost the
 * browser's parent process twice the page's CPU; see that file).
 */
const firefox = ({ answerPersistPrompt = true }: EngineOptions = {}) => ({
  enabled: true,
  headless: true,
  screenshotFailures: false,
  provider: firefoxDirect({
    prefs: answerPersistPrompt
      ? {
          'dom.storageManager.prompt.testing': true,
          'dom.storageManager.prompt.testing.allow': true,
        }
      : {},
  }),
  instances: [{ browser: 'firefox' as const }],
});

// WebKitGTK's MiniBrowser under Xvfb (tests/setup/webkitProvider.ts): one page at a time.
const webkit = (_engine: EngineOptions = {}) => ({
  enabled: true,
  headless: true,
  screenshotFailures: false,
  provider: webkitgtk(),
  instances: [{ browser: 'webkit' as const }],
});

/**
 * The engines beyond Chromium that the `web` and `reliability-web` projects also run in when
 * MEDFUSION_ENGINES does not narrow the run (tests/setup/engines.ts; all three by default), each as
 * `<project>-<engine>` (web-firefox, web-webkit, reliability-web-firefox, …). scripts/run.mjs counts tests per
 * engine from the browser name (tests/setup/engineReporter.ts), so an engine is one entry here.
 */
const otherEngines = Object.fromEntries(
  otherEnginesRequested().map((id) => [id, { firefox, webkit }[id]]),
);

/**
 * A browser project in Chromium, then the same project in each of `otherEngines`.
 *
 * isolate: false — a project's files share one iframe instead of a fresh one (and a fresh module
 * graph) each: in Firefox that per-file load was half of the project's time (262 of 523 s between
 * files). Each test file cleans up what it opens (docs/contributing.md).
 */
function inEveryEngine(
  name: string,
  test: NonNullable<TestProjectInlineConfiguration['test']>,
  engine: EngineOptions = {},
): TestProjectInlineConfiguration[] {
  return [
    {
      extends: true as const,
      test: { name, ...test, isolate: false, browser: chromium(engine) },
    },
    ...Object.entries(otherEngines).map(([id, browser]) => ({
      extends: true as const,
      test: { name: `${name}-${id}`, ...test, isolate: false, browser: browser(engine) },
    })),
  ];
}

/** The browser files of the store contract: their own project, see `stores` below. */
const STORE_CONTRACT_FILES = 'tests/web/store-contract-*.test.ts';

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  worker: { format: 'es' },
  optimizeDeps: {
    include: [
      'comlink',
      'idb',
      '@tensorflow/tfjs',
      '@medfusion/web > @tensorflow/tfjs-core',
      '@tensorflow/tfjs-backend-webgpu',
      'idb-keyval',
      // DICOM: CommonJS/UMD packages (dicom-parser, the Emscripten codecs) need pre-bundling.
      '@medfusion/web > dicom-parser',
      '@medfusion/web > @cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs',
      '@medfusion/web > @cornerstonejs/codec-charls/decodewasmjs',
      '@medfusion/web > @cornerstonejs/codec-openjpeg/decodewasmjs',
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 10_000,
    projects: [
      {
        extends: true,
        // isolate: false — one worker runs every core file: a fresh one per file (97 files) cost
        // about 3 s of CPU each, beside the browsers on 2 cores.
        test: {
          name: 'core',
          environment: 'node',
          include: ['tests/core/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        // @medfusion/node: the LMDB store (real files in the temp folder), worker_threads.
        test: { name: 'node', environment: 'node', include: ['tests/node/**/*.test.ts'] },
      },
      ...inEveryEngine('web', {
        include: ['tests/web/**/*.test.ts'],
        exclude: [STORE_CONTRACT_FILES],
        // Node-side servers (nginx, faulty range servers) whose URLs tests `inject`.
        globalSetup: ['tests/setup/servers.ts'],
      }),
      // The store contract in each engine (tests/stores/, run by tests/web/store-contract-*):
      // minutes of CPU per engine (crashes, raw scans of every file, 3 MiB values), after the
      // other browser projects, whose timing tests and cold worker starts it starved beside them.
      // Each engine runs OpfsStore's contract on the file backend `'auto'` picks there (shared
      // handles in Chromium, exclusive in Firefox, async in WebKit: each backend once);
      // MEDFUSION_STORE_MATRIX=all (`npm run test:stores`) runs every backend in every engine.
      ...inEveryEngine('stores', {
        include: [STORE_CONTRACT_FILES],
        sequence: { groupOrder: 1 },
        provide: { storeMatrix: process.env.MEDFUSION_STORE_MATRIX === 'all' ? 'all' : 'auto' },
      }),
      {
        extends: true,
        test: {
          name: 'reliability',
          environment: 'node',
          include: ['tests/reliability/**/*.test.ts'],
          exclude: ['tests/reliability/**/*.browser.test.ts'],
        },
      },
      ...inEveryEngine(
        'reliability-web',
        {
          include: ['tests/reliability/**/*.browser.test.ts'],
          globalSetup: ['tests/setup/sampleServerSetup.ts'],
        },
        {
          // Memory-bound tests read performance.memory (precise) after a forced gc().
          chromiumArgs: ['--enable-precise-memory-info', '--js-flags=--expose-gc'],
          // persist-prompt.browser.test.ts: open() must not wait on a prompt nobody answers.
          answerPersistPrompt: false,
        },
      ),
      {
        extends: true,
        test: {
          // DICOM files and DICOMweb (a throwaway Orthanc): fixtures made with DCMTK/GDCM at setup.
          name: 'dicom',
          include: ['tests/dicom/**/*.test.ts'],
          isolate: false, // as the other browser projects: one iframe for the files
          browser: chromium(),
          globalSetup: ['tests/setup/dicomSetup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The medfusion command, built (core + cli) and run as a child process.
          name: 'cli',
          environment: 'node',
          include: ['tests/cli/**/*.test.ts'],
          globalSetup: ['tests/cli/setup.ts'],
          testTimeout: 120_000,
          // Beside the browser projects: the commands run under `nice -n 10` (cliHelpers.ts), so
          // pack's worker threads yield the CPU to the browsers and to the servers their timeout
          // tests talk to (which they once starved), and use what is left.
        },
      },
      {
        extends: true,
        test: {
          // How apps consume the packages: @medfusion/web built and run without TF.js.
          name: 'packaging',
          environment: 'node',
          include: ['tests/packaging/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The packages as a consumer gets them: tarballs npm-installed into fresh apps.
          name: 'consumer',
          environment: 'node',
          include: ['tests/consumer/**/*.test.ts'],
          globalSetup: ['tests/consumer/setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          // The stress harness's short run (tests/stress/): its CPU hogs must not overlap any
          // other project's tests, so it runs after all of them.
          name: 'stress',
          environment: 'node',
          include: ['tests/stress/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          // Each file builds the demo into demo/dist: one file at a time.
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});

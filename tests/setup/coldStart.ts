// A worker's start in the suite is not what a user's start is: its module graph is transformed
// by Vite on its first request (cold in a fresh clone), while the other browser projects start
// beside it on 2 cores. Tests whose claim is not about starting give their pools this much for a
// start (the default is 10 s); what startTimeoutMs itself does is tested in worker-start,
// worker-timeout and worker-crash with their own values.

/** Worker-pool options for a start that may be cold: 60 s, within the test timeout's margin. */
export const COLD_START = { startTimeoutMs: 60_000 } as const;

/** `expect.poll` options for waiting until a cold pool's workers are ready. */
export const COLD_WAIT = { timeout: 60_000 } as const;

// written by tests/consumer/subpaths.test.ts

// written by tests/consumer/subpaths.test.ts from the list of public subpaths

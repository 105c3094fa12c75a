// Settings changed for part of a test file. server/env.ts parses process.env once per object, so
// replacing the object (rather than changing its keys) makes getEnv() read the new settings.

const original = process.env;

/** From now on getEnv() sees these settings on top of the test run's own. */
export function overrideEnv(overrides: Record<string, string>): void {
  process.env = { ...original, ...overrides };
}

/** Back to the test run's own settings. */
export function restoreEnv(): void {
  process.env = original;
}

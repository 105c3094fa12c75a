// Types for find-test-tools.mjs (plain JavaScript so it runs before anything is installed).
export const DEBIAN_CHROMIUM: string;

export function whyNotExecutable(file: string): string | null;

export type BrowserSearch =
  | { found: true; path: string; source: 'CHROMIUM_PATH' | "Debian's chromium" | "Playwright's own browser" }
  | { found: false; explicit: boolean; reason: string };

export function findBrowser(options: {
  env: Record<string, string | undefined>;
  systemPaths?: string[];
  playwrightPath?: () => string | undefined;
}): BrowserSearch;

export function findOnPath(name: string, env: Record<string, string | undefined>): string | null;

export type InstallPlan =
  | { action: 'none' }
  | { action: 'stop'; message: string }
  | { action: 'install'; announce: string; commands: string[][] };

export function planInstall(options: {
  packages: string[];
  missing: string[];
  uid: number;
  sudo: boolean;
  apt: boolean;
}): InstallPlan;

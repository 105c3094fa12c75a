// What `npm test` needs from the machine beyond node_modules: a Chromium for Playwright's `ui`
// project and the openssl binary (a webhook test makes a throwaway TLS certificate with it).
// Plain Node, no tsx: it runs before `npm ci` in .ci/run. playwright.config.ts imports
// findBrowser too, so the browser the check approved is the one the tests launch.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Why `file` cannot be run, or null when it can. */
export function whyNotExecutable(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'does not exist';
  }
  if (!stat.isFile()) return 'is not a file';
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return 'is not executable';
  }
  return null;
}

// Required lazily: .ci/run runs the check before node_modules exists.
function playwrightChromiumPath() {
  try {
    return createRequire(import.meta.url)('@playwright/test').chromium.executablePath();
  } catch {
    return undefined;
  }
}

/**
 * CHROMIUM_PATH, then Debian's /usr/bin/chromium, then a browser Playwright downloaded itself.
 * A CHROMIUM_PATH that does not work is an error, never a reason to quietly try the others.
 */
export function findBrowser({
  env,
  systemPaths = [DEBIAN_CHROMIUM],
  playwrightPath = playwrightChromiumPath,
}) {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    const why = whyNotExecutable(chosen);
    if (why) return { found: false, explicit: true, reason: `CHROMIUM_PATH=${chosen} ${why}` };
    return { found: true, path: chosen, source: 'CHROMIUM_PATH' };
  }
  const tried = ['CHROMIUM_PATH is not set'];
  for (const candidate of systemPaths) {
    const why = whyNotExecutable(candidate);
    if (!why) return { found: true, path: candidate, source: "Debian's chromium" };
    tried.push(`${candidate} ${why}`);
  }
  const own = playwrightPath();
  if (own && !whyNotExecutable(own)) return { found: true, path: own, source: "Playwright's own browser" };
  tried.push(own ? `Playwright has no browser at ${own}` : 'Playwright is not installed yet');
  return { found: false, explicit: false, reason: tried.join(', ') };
}

/** The first executable `name` on env.PATH, or null. */
export function findOnPath(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (!whyNotExecutable(file)) return file;
  }
  return null;
}

/**
 * What to do about missing Debian packages: install them (as root, or through passwordless
 * sudo) or stop with the one command the user has to run.
 */
export function planInstall({ packages, missing, uid, sudo, apt }) {
  if (packages.length === 0) return { action: 'none' };
  const list = packages.join(' ');
  const needs = `npm test needs ${missing.join(' and ')}.`;
  if (!apt) {
    return {
      action: 'stop',
      message: `${needs}\nThis machine has no apt-get, so npm test cannot install it. Install ${packages.map((p) => (p === 'chromium' ? 'Chromium' : p)).join(' and ')} with your system's package manager${packages.includes('chromium') ? ' and set CHROMIUM_PATH to the browser binary' : ''}, then run npm test again. No test was run.`,
    };
  }
  let prefix;
  if (uid === 0) prefix = [];
  else if (sudo) prefix = ['sudo', '-n'];
  else {
    return {
      action: 'stop',
      message: `${needs}\nnpm test installs it itself only as root or with passwordless sudo. Run once:\n\n    sudo apt-get install -y ${list}\n\nthen npm test again${packages.includes('chromium') ? ' (or set CHROMIUM_PATH to a Chromium binary)' : ''}. No test was run.`,
    };
  }
  const aptGet = [
    ...prefix,
    'env',
    'DEBIAN_FRONTEND=noninteractive',
    'apt-get',
    '-qq',
    '-o',
    'DPkg::Lock::Timeout=300',
  ];
  return {
    action: 'install',
    announce: `test tools: installing Debian's ${packages.join(' and ')} (${prefix.length ? 'sudo ' : ''}apt-get install ${list}), once; about two minutes…`,
    commands: [
      [...aptGet, 'update'],
      [...aptGet, '-y', 'install', ...packages],
    ],
  };
}

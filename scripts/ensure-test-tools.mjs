#!/usr/bin/env node
// The first step of `npm test` and of .ci/run: make sure the machine has what the tests need
// beyond node_modules, installing Debian's packages where it may, and otherwise stopping before
// any test with the command to run (a browser launch failure halfway through says much less).
import { spawnSync } from 'node:child_process';
import { DEBIAN_CHROMIUM, findBrowser, findOnPath, planInstall } from './find-test-tools.mjs';

const env = process.env;

function stop(message) {
  console.error(`test tools: ${message}`);
  process.exit(1);
}

function canSudo() {
  const result = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return result.status === 0;
}

let browser = findBrowser({ env });
// The user named a browser; installing another one would hide their mistake.
if (!browser.found && browser.explicit)
  stop(
    `${browser.reason}. Point CHROMIUM_PATH at a Chromium binary, or unset it to use ${DEBIAN_CHROMIUM}. No test was run.`,
  );

const packages = [];
const missing = [];
if (!browser.found) {
  packages.push('chromium');
  missing.push(`a Chromium for the browser tests (${browser.reason})`);
}
if (!findOnPath('openssl', env)) {
  packages.push('openssl');
  missing.push('the openssl command (a webhook test makes a TLS certificate with it)');
}
if (!findOnPath('python3', env)) {
  packages.push('python3');
  missing.push('python3 (a test runs the Python example of verifying a webhook delivery)');
}

const plan = planInstall({
  packages,
  missing,
  uid: process.getuid?.() ?? -1,
  sudo: process.getuid?.() !== 0 && canSudo(),
  apt: findOnPath('apt-get', env) !== null,
});
if (plan.action === 'stop') stop(plan.message);
if (plan.action === 'install') {
  console.log(plan.announce);
  for (const [command, ...args] of plan.commands) {
    const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.status !== 0) {
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`
        .trim()
        .split('\n')
        .slice(-15)
        .join('\n');
      stop(
        `\`${[command, ...args].join(' ')}\` failed (exit ${result.status}):\n${output}\nNo test was run.`,
      );
    }
  }
  browser = findBrowser({ env });
  if (!browser.found) stop(`installed chromium, yet still no browser: ${browser.reason}. No test was run.`);
  if (!findOnPath('openssl', env))
    stop('installed openssl, yet no openssl command is on PATH. No test was run.');
  if (!findOnPath('python3', env))
    stop('installed python3, yet no python3 command is on PATH. No test was run.');
}

// A browser that exists but cannot start (a broken install, missing libraries) is caught here,
// not halfway through the suite.
const version = spawnSync(browser.path, ['--version'], { encoding: 'utf8', timeout: 60_000 });
if (version.status !== 0) {
  const output =
    `${version.stdout ?? ''}${version.stderr ?? ''}${version.error ? String(version.error) : ''}`.trim();
  stop(
    `${browser.path} (${browser.source}) does not run: \`${browser.path} --version\` failed:\n${output}\nFix it or set CHROMIUM_PATH to a working Chromium. No test was run.`,
  );
}
console.log(
  `test tools: ${version.stdout.trim()} at ${browser.path} (${browser.source}); openssl and python3 ok`,
);

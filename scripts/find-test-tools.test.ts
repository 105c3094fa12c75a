import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser, findOnPath, planInstall } from './find-test-tools.mjs';

// `npm test` finds a browser (CHROMIUM_PATH, /usr/bin/chromium, Playwright's own) or installs
// Debian's chromium where it may, else stops before any test naming the command. Real files in a
// temporary directory stand in for browsers; the CLI runs as a subprocess.

const ROOT = path.resolve(import.meta.dirname, '..');
let dir: string;
let fakeChromium: string;
let notExecutable: string;
const missing = () => path.join(dir, 'no-such-browser');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-test-tools-'));
  fakeChromium = path.join(dir, 'chromium');
  fs.writeFileSync(fakeChromium, '#!/bin/sh\necho "Chromium 123.0.0.0 fake"\n', { mode: 0o755 });
  notExecutable = path.join(dir, 'chromium.txt');
  fs.writeFileSync(notExecutable, 'not a program\n', { mode: 0o644 });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('findBrowser', () => {
  it('CHROMIUM_PATH naming a non-executable file is refused, not passed over for a browser that exists', () => {
    const result = findBrowser({
      env: { CHROMIUM_PATH: notExecutable },
      systemPaths: [fakeChromium],
      playwrightPath: () => fakeChromium,
    });
    expect(result).toEqual({
      found: false,
      explicit: true,
      reason: `CHROMIUM_PATH=${notExecutable} is not executable`,
    });
  });

  it('CHROMIUM_PATH naming a directory or nothing is refused with the reason', () => {
    expect(findBrowser({ env: { CHROMIUM_PATH: dir }, systemPaths: [] })).toEqual({
      found: false,
      explicit: true,
      reason: `CHROMIUM_PATH=${dir} is not a file`,
    });
    expect(findBrowser({ env: { CHROMIUM_PATH: missing() }, systemPaths: [] })).toEqual({
      found: false,
      explicit: true,
      reason: `CHROMIUM_PATH=${missing()} does not exist`,
    });
  });

  it('CHROMIUM_PATH naming an executable comes first', () => {
    expect(findBrowser({ env: { CHROMIUM_PATH: fakeChromium }, systemPaths: [missing()] })).toEqual({
      found: true,
      path: fakeChromium,
      source: 'CHROMIUM_PATH',
    });
  });

  it("without CHROMIUM_PATH, Debian's path before Playwright's own browser", () => {
    const playwright = path.join(dir, 'playwright-chrome');
    fs.copyFileSync(fakeChromium, playwright);
    fs.chmodSync(playwright, 0o755);
    expect(findBrowser({ env: {}, systemPaths: [fakeChromium], playwrightPath: () => playwright })).toEqual({
      found: true,
      path: fakeChromium,
      source: "Debian's chromium",
    });
    expect(findBrowser({ env: {}, systemPaths: [missing()], playwrightPath: () => playwright })).toEqual({
      found: true,
      path: playwright,
      source: "Playwright's own browser",
    });
  });

  it('none found: the reason names every place looked at', () => {
    expect(
      findBrowser({
        env: { CHROMIUM_PATH: '' },
        systemPaths: [missing(), notExecutable],
        playwrightPath: () => missing(),
      }),
    ).toEqual({
      found: false,
      explicit: false,
      reason: `CHROMIUM_PATH is not set, ${missing()} does not exist, ${notExecutable} is not executable, Playwright has no browser at ${missing()}`,
    });
    expect(findBrowser({ env: {}, systemPaths: [], playwrightPath: () => undefined })).toEqual({
      found: false,
      explicit: false,
      reason: 'CHROMIUM_PATH is not set, Playwright is not installed yet',
    });
  });
});

describe('findOnPath: a tool on PATH, such as openssl', () => {
  it('finds only executables, in PATH order', () => {
    const other = fs.mkdtempSync(path.join(dir, 'bin-'));
    fs.copyFileSync(notExecutable, path.join(other, 'chromium'));
    expect(findOnPath('chromium', { PATH: [other, dir].join(path.delimiter) })).toBe(fakeChromium);
    expect(findOnPath('chromium', { PATH: other })).toBeNull();
    expect(findOnPath('chromium', {})).toBeNull();
  });
});

describe('planInstall', () => {
  const need = { packages: ['chromium', 'openssl'], missing: ['a Chromium', 'the openssl command'] };

  it('nothing missing: nothing to do', () => {
    expect(planInstall({ packages: [], missing: [], uid: 1000, sudo: false, apt: true })).toEqual({
      action: 'none',
    });
  });

  it('as root: apt-get update, then install, announced in one line', () => {
    const plan = planInstall({ ...need, uid: 0, sudo: false, apt: true });
    const aptGet = [
      'env',
      'DEBIAN_FRONTEND=noninteractive',
      'apt-get',
      '-qq',
      '-o',
      'DPkg::Lock::Timeout=300',
    ];
    expect(plan).toEqual({
      action: 'install',
      announce:
        "test tools: installing Debian's chromium and openssl (apt-get install chromium openssl), once; about two minutes…",
      commands: [
        [...aptGet, 'update'],
        [...aptGet, '-y', 'install', 'chromium', 'openssl'],
      ],
    });
  });

  it('not root, passwordless sudo: the same commands through sudo -n (never a password prompt)', () => {
    const plan = planInstall({ ...need, packages: ['chromium'], uid: 1000, sudo: true, apt: true });
    expect(plan.action).toBe('install');
    if (plan.action !== 'install') return;
    expect(plan.commands.map((c) => c.slice(0, 5))).toEqual([
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
    ]);
    expect(plan.commands[1]!.slice(-3)).toEqual(['-y', 'install', 'chromium']);
  });

  it('not root, no sudo: stops, naming the one command to run', () => {
    expect(planInstall({ ...need, uid: 1000, sudo: false, apt: true })).toEqual({
      action: 'stop',
      message:
        'npm test needs a Chromium and the openssl command.\nnpm test installs it itself only as root or with passwordless sudo. Run once:\n\n    sudo apt-get install -y chromium openssl\n\nthen npm test again (or set CHROMIUM_PATH to a Chromium binary). No test was run.',
    });
  });

  it('no apt-get: stops, pointing at CHROMIUM_PATH', () => {
    const plan = planInstall({ ...need, uid: 0, sudo: false, apt: false });
    expect(plan).toEqual({
      action: 'stop',
      message:
        "npm test needs a Chromium and the openssl command.\nThis machine has no apt-get, so npm test cannot install it. Install Chromium and openssl with your system's package manager and set CHROMIUM_PATH to the browser binary, then run npm test again. No test was run.",
    });
  });
});

describe('scripts/ensure-test-tools.mjs, the first step of npm test', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['scripts/ensure-test-tools.mjs'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });

  it('a CHROMIUM_PATH that is not executable: exit 1 with a clear message, and nothing installed', () => {
    const result = run({ CHROMIUM_PATH: notExecutable });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `test tools: CHROMIUM_PATH=${notExecutable} is not executable. Point CHROMIUM_PATH at a Chromium binary, or unset it to use /usr/bin/chromium. No test was run.\n`,
    );
  });

  it('a CHROMIUM_PATH that runs: one line naming the browser it will use', () => {
    const result = run({ CHROMIUM_PATH: fakeChromium });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      `test tools: Chromium 123.0.0.0 fake at ${fakeChromium} (CHROMIUM_PATH); openssl and python3 ok\n`,
    );
    expect(result.status).toBe(0);
  });

  it('a browser that exists but does not start is refused before any test', () => {
    const broken = path.join(dir, 'broken-chromium');
    fs.writeFileSync(
      broken,
      '#!/bin/sh\necho "error while loading shared libraries: libnss3.so" >&2\nexit 127\n',
      { mode: 0o755 },
    );
    const result = run({ CHROMIUM_PATH: broken });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `test tools: ${broken} (CHROMIUM_PATH) does not run: \`${broken} --version\` failed:\nerror while loading shared libraries: libnss3.so\nFix it or set CHROMIUM_PATH to a working Chromium. No test was run.\n`,
    );
  });
});

import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end, its output collected, without blocking the test's event loop.
 *
 * Why a test that talks HTTP never blocks its loop for seconds: docs/testing.md (`run-command.ts`).
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A repository script (`scripts/admin.ts`, `scripts/migrate.ts`) run from the repository root with
 * tsx's loader in one Node process (the `tsx` command would start a second).
 */
export const runScript = (file: string, args: string[], env: NodeJS.ProcessEnv): Promise<CommandRun> =>
  runCommand(process.execPath, ['--import', 'tsx', file, ...args], { env });

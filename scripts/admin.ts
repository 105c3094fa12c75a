// npm run --silent admin -- <command> [flags]   (docs/rules.md#admin-command-line)
// Prints one JSON object on stdout; logs and progress go to stderr; exits non-zero on failure.
import { runAdmin } from './admin-cli';

runAdmin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
});

import { VERIFY_EXAMPLES } from './verify-example-code';
import { CopyButton } from '../ui/copy-button';

/**
 * Verifying a delivery by hand in Node, Python and the shell: the code of
 * components/webhooks/verify-example-code.ts, which the test suite runs against real deliveries.
 */
export function VerifyExamples() {
  return (
    <div className="space-y-4">
      {VERIFY_EXAMPLES.map((example) => (
        <section key={example.file} aria-labelledby={`verify-${example.language}`} className="space-y-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 id={`verify-${example.language}`} className="text-sm font-semibold">
              {example.title} <span className="font-normal text-zinc-500">({example.file})</span>
            </h3>
            <CopyButton value={example.source} label={`Copy the ${example.title} example`} />
          </div>
          <pre
            // biome-ignore lint/a11y/noNoninteractiveTabindex: the code scrolls sideways; keyboard users must be able to focus it to scroll it (axe scrollable-region-focusable)
            tabIndex={0}
            className="overflow-x-auto rounded-md bg-zinc-900 p-3 font-mono text-xs leading-relaxed text-zinc-100"
          >
            <code>{example.source}</code>
          </pre>
        </section>
      ))}
    </div>
  );
}

import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 860 };

/**
 * axe on the page as it is, with the WCAG 2.1 A/AA rules and axe's best practices. Only violations
 * are gathered (`resultTypes`): axe still runs every rule, but skips listing each node that passed.
 *
 * In legacy mode axe gathers its results inside the page. By default @axe-core/playwright opens a
 * blank page for every analysis to merge the results of cross-origin frames, which these pages do
 * not have (their CSP allows none, and axe's `frame-tested` rule would report one it could not
 * enter): an analysis took 1.1-2.2 s that way and 0.35-0.65 s in legacy mode, with the same
 * violations (/notes, /keys, /docs; docs/performance.md#axe-in-legacy-mode).
 */
export function axe(page: Page): AxeBuilder {
  return new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .options({ resultTypes: ['violations'] })
    .setLegacyMode(true);
}

/** axe's serious and critical violations of the page as it is, at 1280 px and at a 390 px phone. */
export async function graveViolations(page: Page, label: string): Promise<string[]> {
  const found: string[] = [];
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    const { violations } = await axe(page).analyze();
    for (const v of violations)
      if (v.impact === 'serious' || v.impact === 'critical')
        found.push(
          `${label} at ${viewport.width} px: ${v.id} (${v.impact}): ${v.nodes
            .slice(0, 4)
            .map((n) => n.target.join(' '))
            .join(', ')}`,
        );
  }
  await page.setViewportSize(DESKTOP);
  return found;
}

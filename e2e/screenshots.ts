import path from 'node:path';
import { type Locator, type Page, test } from '@playwright/test';

// The UI tests photograph the pages they visit: into test-results/e2e/ (Playwright's output folder,
// not committed) on a normal run, and into docs/screenshots, the copies that
// docs/settings-app.md#screenshots shows, only with UPDATE_SCREENSHOTS=1.

const shotsDir = () =>
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.resolve(import.meta.dirname, '..', 'docs', 'screenshots')
    : path.join(test.info().project.outputDir, 'screenshots');

/**
 * The whole page by default; `fullPage: false` for the viewport alone (an open dialog). CSS
 * transitions are finished first, so a button that was just enabled is not caught half-faded.
 */
export const shot = (page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}) =>
  page.screenshot({ path: path.join(shotsDir(), `${name}.png`), fullPage, animations: 'disabled' });

/** One part of the page (an opened delivery), as `shot` takes pages. */
export const shotOf = (part: Locator, name: string) =>
  part.screenshot({ path: path.join(shotsDir(), `${name}.png`), animations: 'disabled' });

import { expect, type Locator } from '@playwright/test';

/**
 * Fails when a control is cut off: its box reaches past its container or the screen, or what it
 * shows is wider than its box. A <select> is measured at its own max-content width, the width the
 * browser gives it to show its widest option with its arrow, so no option is cut off once chosen;
 * anything else by its scrolling width (text that overflows it counts).
 */
export async function expectNotClipped(control: Locator, container: Locator, what: string): Promise<void> {
  await expect(control, what).toBeVisible();
  const box = (await control.boundingBox())!;
  const outer = (await container.boundingBox())!;
  const screen = control.page().viewportSize()!;
  // Half a pixel for subpixel layout.
  expect(box.x, `${what}: its left edge`).toBeGreaterThanOrEqual(Math.max(outer.x, 0) - 0.5);
  expect(box.x + box.width, `${what}: its right edge`).toBeLessThanOrEqual(
    Math.min(outer.x + outer.width, screen.width) + 0.5,
  );
  const overflow = await control.evaluate((el) => {
    if (el instanceof HTMLSelectElement) {
      const width = el.getBoundingClientRect().width;
      const saved = el.getAttribute('style');
      el.style.width = 'max-content';
      el.style.maxWidth = 'none';
      const needed = el.getBoundingClientRect().width;
      if (saved === null) el.removeAttribute('style');
      else el.setAttribute('style', saved);
      return needed - width;
    }
    return el.scrollWidth - el.clientWidth;
  });
  expect(overflow, `${what}: its content is wider than it by ${overflow}px`).toBeLessThanOrEqual(0.5);
}

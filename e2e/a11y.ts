import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

/** axe-core on the page as it is now (WCAG 2.1 A and AA rules and best practices): no serious or critical finding. */
export async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)}`)
          .join(' | ')}`,
    );
  expect(found, `accessibility of ${where}`).toEqual([]);
}

type ControlFinder = (root: Element) => Element[];

/**
 * Every visible, enabled control of `scope` (the page, or part of it) can be reached with Tab: tabs from the top
 * of the page and checks each one got the focus. Radix's focus guards and toast focus proxies are not controls.
 */
export async function expectAllControlsReachable(page: Page, where: string, scope?: Locator): Promise<void> {
  await page.evaluate(() => {
    const selector =
      'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), ' +
      'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
    const visible = (el: Element) => {
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && !el.closest('[inert]');
    };
    const isControl = (el: Element) =>
      visible(el) &&
      (el as HTMLElement).tabIndex >= 0 &&
      !el.closest('[aria-hidden="true"]') &&
      !el.matches('[data-radix-focus-guard]') &&
      // radix's toast focus proxies: empty spans at the edges of the toast region that pass the focus on.
      !(el.matches('span:empty') && el.parentElement?.matches('[role="region"][aria-label^="Notifications"]'));
    const find: ControlFinder = (root) => [...root.querySelectorAll(selector)].filter(isControl);
    (window as unknown as { a11yControls: ControlFinder }).a11yControls = find;
    document.querySelectorAll('[data-a11y-control], [data-a11y-seen]').forEach((el) => {
      el.removeAttribute('data-a11y-control');
      el.removeAttribute('data-a11y-seen');
    });
  });
  const root = scope ?? page.locator('body');
  const total = await root.evaluate((element) => {
    const controls = (window as unknown as { a11yControls: ControlFinder }).a11yControls(element);
    controls.forEach((el, i) => el.setAttribute('data-a11y-control', String(i)));
    return controls.length;
  });
  // Tab from the top of the page, as many times as the whole page has stops (and a few more).
  const stops = await page.evaluate(() => {
    // Blurring alone leaves Chromium's starting point where the focus was (a button just pressed): start at the top.
    const top = document.createElement('span');
    top.tabIndex = -1;
    top.id = 'a11y-walk-start';
    document.body.prepend(top);
    top.focus();
    const controls = (window as unknown as { a11yControls: ControlFinder }).a11yControls(document.body);
    // Chromium tabs through a date or time field's parts (day, month, year, hours, minutes, AM/PM) one by one.
    const parts = controls.filter((el) =>
      el.matches('input[type="date"], input[type="datetime-local"], input[type="time"]'),
    );
    return controls.length + parts.length * 6;
  });
  // Radio groups and similar composites take one Tab stop for the group: arrows move inside them.
  const reached = new Set<string>();
  for (let i = 0; i < stops + 10; i += 1) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => {
      const active = document.activeElement;
      const group = active?.closest('[role="radiogroup"], [role="tablist"], [role="menu"]');
      if (group) group.querySelectorAll('[data-a11y-control]').forEach((el) => el.setAttribute('data-a11y-seen', ''));
      active?.setAttribute('data-a11y-seen', '');
      return active?.getAttribute('data-a11y-control') ?? null;
    });
    if (id !== null) reached.add(id);
  }
  await page.evaluate(() => document.getElementById('a11y-walk-start')?.remove());
  const missed = await root.evaluate((element) =>
    [...element.querySelectorAll('[data-a11y-control]:not([data-a11y-seen])')].map(
      (el) =>
        `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" ` +
        el.outerHTML.slice(0, 120),
    ),
  );
  expect(missed, `controls of ${where} that Tab never reaches (${reached.size} of ${total} reached)`).toEqual([]);
}

/** In an open dialog, Tab and Shift+Tab keep the focus inside it; Escape (when allowed) returns it to `opener`. */
export async function expectFocusTrapped(page: Page, dialog: Locator, where: string, opener?: Locator): Promise<void> {
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < 15; i += 1) {
      await page.keyboard.press(key);
      const inside = await dialog.evaluate((d) => d.contains(document.activeElement));
      expect(inside, `focus stays in ${where} after ${key} x${i + 1}`).toBe(true);
    }
  }
  if (opener) {
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(opener, `focus returns from ${where}`).toBeFocused();
  }
}

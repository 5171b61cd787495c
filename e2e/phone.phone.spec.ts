import type { Locator, Page } from '@playwright/test';
import { ADMIN, createStaffMember, expect, signIn, test } from './fixtures';

/** Where an element's text wraps: for each line after the first, the characters either side of the break. */
function lineBreaks(element: Locator): Promise<[string, string][]> {
  return element.evaluate((root) => {
    const chars: { char: string; top: number }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        chars.push({ char: text[i], top: Math.round(range.getBoundingClientRect().top) });
      }
    }
    const breaks: [string, string][] = [];
    for (let i = 1; i < chars.length; i += 1) {
      if (chars[i].top > chars[i - 1].top + 2) breaks.push([chars[i - 1].char, chars[i].char]);
    }
    return breaks;
  });
}

/** Whether a control (what a tap can reach) lies under any part of the back-to-top button. */
function backToTopCoversControl(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const button = document.querySelector<HTMLElement>('.back-to-top');
    if (!button || getComputedStyle(button).visibility === 'hidden') return false;
    const { left, top, right, bottom } = button.getBoundingClientRect();
    return [left + 2, (left + right) / 2, right - 2].some((x) =>
      [top + 2, (top + bottom) / 2, bottom - 2].some((y) => {
        const under = document.elementsFromPoint(x, y).find((element) => !button.contains(element));
        return Boolean(under?.closest('a[href], button, input, select, textarea, label, [role="button"]'));
      }),
    );
  });
}

test('on a phone: sign in, see the header, open the profile menu, sign out and leave no local data', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByText('Shared Computer Notice')).toBeVisible();
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect
    .poll(() => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).join(',')))
    .toMatch(/sp_/);
  await page.screenshot({ path: 'test-results/phone-home.png' });
  // The desktop sidebar is not rendered on a phone at all (decision 99); a wide window has it (e2e/chat.spec.ts).
  await expect(page.getByRole('main', { name: 'Home feed' })).toBeVisible();
  await expect(page.locator('aside.feed-sidebar')).toHaveCount(0);
  await page.getByRole('button', { name: /profile menu|account menu|open profile/i }).click();
  await expect(page.getByRole('menuitem', { name: 'Sign Out' })).toBeVisible();
  await expect(page.getByText(ADMIN.email).last()).toBeVisible();
  await expect(page.getByText('System Administrator').last()).toBeVisible();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
  const left = await page.evaluate(async () =>
    (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.includes('sp_')),
  );
  expect(left).toEqual([]);
  const status = await page.evaluate(async () => (await fetch('/api/auth/user')).status);
  expect(status).toBe(401);
});

test('on a phone: the menu has the support contact, and a long e-mail address wraps before its "@" or a dot', async ({
  page,
  browser,
}) => {
  const staff = await createStaffMember(browser, 'Bartholomewina');
  await signIn(page, staff.email, staff.password);
  await page.getByRole('button', { name: 'Open menu' }).click();
  const menu = page.getByRole('dialog', { name: 'Menu' });
  const help = menu.getByRole('region', { name: 'Need Help?' });
  await expect(help).toContainText('Questions about the portal? Contact support.');
  await expect(help.getByRole('link', { name: 'help@care.example' })).toHaveAttribute(
    'href',
    'mailto:help@care.example',
  );
  const email = menu.locator('.profile-email');
  await expect(email).toHaveText(staff.email);
  const breaks = await lineBreaks(email);
  expect(breaks.length, 'the address is long enough to wrap in the menu').toBeGreaterThan(0);
  // Each line ends at a hyphen or before the "@" or a dot, never inside a word.
  for (const [before, after] of breaks) expect(before === '-' || after === '@' || after === '.').toBe(true);
  await page.screenshot({ path: 'test-results/phone-menu-help.png' });
});

test('on a phone: the composer shows its whole placeholder, the chips show they scroll, long posts fold, names show with a tap, and back-to-top covers no control', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const staff = await createStaffMember(browser, 'Bartholomewina');
  await signIn(page, staff.email, staff.password);
  const composer = page.getByRole('region', { name: 'Create a post' });
  const content = composer.getByLabel('Post content');
  // The placeholder, laid out at the box's width in its font, fits in the box.
  const fit = await content.evaluate((box) => {
    if (!(box instanceof HTMLTextAreaElement)) throw new Error('not a textarea');
    const style = getComputedStyle(box);
    const probe = document.createElement('div');
    probe.textContent = box.placeholder;
    Object.assign(probe.style, {
      position: 'absolute',
      visibility: 'hidden',
      boxSizing: 'border-box',
      width: `${box.clientWidth}px`,
      padding: style.padding,
      font: style.font,
      lineHeight: style.lineHeight,
      whiteSpace: 'pre-wrap',
      overflowWrap: 'break-word',
    });
    document.body.append(probe);
    const needed = probe.offsetHeight;
    probe.remove();
    return { needed, shown: box.clientHeight };
  });
  expect(fit.needed).toBeLessThanOrEqual(fit.shown);

  // The category chips scroll sideways, and their row fades at the edge where more wait.
  const chips = page.getByRole('group', { name: 'Filter by category' });
  const row = await chips.evaluate((element) => ({
    scrolls: element.scrollWidth > element.clientWidth,
    mask: getComputedStyle(element).maskImage,
  }));
  expect(row.scrolls).toBe(true);
  expect(row.mask).toContain('linear-gradient');

  // A post of thirty lines shows about ten, and "Show more" shows the rest.
  const long = Array.from({ length: 30 }, (_, i) => `Handover line ${i + 1}: all residents settled.`).join('\n');
  await content.fill(long);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(content).toHaveValue('');
  const card = page.getByRole('article').filter({ hasText: 'Handover line 1:' });
  const text = card.locator('.post-text');
  const folded = await text.evaluate(
    (element) => element.clientHeight / parseFloat(getComputedStyle(element).lineHeight),
  );
  expect(folded).toBeGreaterThan(9);
  expect(folded).toBeLessThan(11);
  await card.getByRole('button', { name: 'Show more' }).click();
  await expect(text).toContainText('Handover line 30:');
  expect(await text.evaluate((element) => element.scrollHeight <= element.clientHeight + 1)).toBe(true);
  await card.getByRole('button', { name: 'Show less' }).click();

  // A phone cannot hover: "Who reacted" lists the names with a tap.
  await card.getByRole('button', { name: 'Like', exact: true }).click();
  await card.getByRole('button', { name: 'Who reacted' }).click();
  await expect(card.getByRole('listitem').filter({ hasText: 'Like: You' })).toBeVisible();

  // Shorter posts of one's own carry edit and delete buttons at the card's right edge.
  for (let i = 1; i <= 3; i += 1) {
    await content.fill(`Short note ${i} from the phone`);
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    await expect(content).toHaveValue('');
  }
  await page.screenshot({ path: 'test-results/phone-feed-ergonomics.png' });
  // All the way down the feed, the back-to-top button is never over a control.
  const height = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  let seen = false;
  for (let y = 320; y <= height; y += 24) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await expect.poll(() => backToTopCoversControl(page), { timeout: 2000 }).toBe(false);
    seen ||= await page.locator('.back-to-top').isVisible();
  }
  expect(seen, 'the button showed somewhere on the way').toBe(true);
});

test('on a phone: Back closes the open chat or dialog before leaving the page, and leaves as usual once they are closed', async ({
  page,
  browser,
}) => {
  const staff = await createStaffMember(browser, 'Backhouse');
  await signIn(page, staff.email, staff.password);
  const feed = page.getByRole('main', { name: 'Home feed' });
  await expect(feed).toBeVisible();
  const feedUrl = page.url();

  // The chat: Back closes it and the feed stays.
  await page.getByRole('button', { name: 'Chat' }).first().click();
  const chat = page.getByRole('dialog', { name: 'Messages' });
  await expect(chat).toBeVisible();
  await page.goBack();
  await expect(chat).toBeHidden();
  expect(page.url()).toBe(feedUrl);
  await expect(feed).toBeVisible();

  // A dialog (editing one's post, with a change typed): Back closes it, on the same page.
  const composer = page.getByRole('region', { name: 'Create a post' });
  const note = `A note to edit, from ${staff.email}`;
  await composer.getByLabel('Post content').fill(note);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const card = page.getByRole('article').filter({ hasText: note });
  await card.getByRole('button', { name: 'Edit post' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Post' });
  await expect(edit).toBeVisible();
  await page.goBack();
  await expect(edit).toBeHidden();
  expect(page.url()).toBe(feedUrl);
  await expect(card).toBeVisible();

  // The menu's link opens Residents once: closing the menu does not pop the new page, and Back returns to the feed.
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Residents OPP' }).click();
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  await expect(page).toHaveURL(/\/residents$/);
  await page.goBack();
  await expect(feed).toBeVisible();
  expect(page.url()).toBe(feedUrl);
  await page.goForward();
  await expect(page).toHaveURL(/\/residents$/);

  // A dialog opened from the menu keeps one entry; closed by its own button, it leaves none: Back leaves the page.
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Make a Suggestion' }).click();
  const suggestion = page.getByRole('dialog', { name: 'Make a Suggestion' });
  await expect(suggestion).toBeVisible();
  await suggestion.getByRole('button', { name: 'Close' }).click();
  await expect(suggestion).toBeHidden();
  await expect(page).toHaveURL(/\/residents$/);
  await page.goBack();
  await expect(feed).toBeVisible();
  expect(page.url()).toBe(feedUrl);

  // The chat closed by its own button leaves no entry either: Back then leaves the feed for the screen before it.
  await page.goForward();
  await expect(page).toHaveURL(/\/residents$/);
  await page.getByRole('button', { name: 'Chat' }).first().click();
  await expect(chat).toBeVisible();
  await chat.getByRole('button', { name: 'Close chat' }).click();
  await expect(chat).toBeHidden();
  await page.goBack();
  await expect(feed).toBeVisible();
  expect(page.url()).toBe(feedUrl);
});

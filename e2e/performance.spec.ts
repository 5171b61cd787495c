import type { Locator, Page } from '@playwright/test';
import { createStaffMember, expect, STAFF_PASSWORD, test } from './fixtures';
import { FIRST_PULL_PATHS } from '../schema/sync-limits';

// How the app loads, kept apart from the journeys of feed.spec.ts: what the first page asks for, which scripts hold
// zod, and when the database's code is fetched (decisions 111, 112 and 113).

/** A short random word, so each check finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });

test('a signed-in first visit gets a page that asks for the feed at once, and its first pages are asked for once (decision 111)', async ({
  browser,
}) => {
  const reader = await createStaffMember(browser, 'Rosa');
  const text = `The garden gate is fixed ${tag()}`;
  // A new device: no service worker yet, which would answer with the index.html it keeps.
  const phone = await browser.newContext({ serviceWorkers: 'block' });
  const page = await phone.newPage();
  const signedIn = await page.request.post('/api/auth/login', {
    data: { email: reader.email, password: STAFF_PASSWORD },
  });
  expect(signedIn.status()).toBe(200);
  expect(
    (await page.request.post('/api/posts', { data: { content: text, category: 'company_announcement' } })).status(),
  ).toBe(201);
  const firstPulls: string[] = [FIRST_PULL_PATHS.posts, FIRST_PULL_PATHS.users];
  const asked: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (firstPulls.includes(url.pathname + url.search)) asked.push(url.pathname + url.search);
  });

  await page.goto('/');
  await expect(postCard(page, text)).toBeVisible();
  // The page the server sent: base styles inline, the feed's code and first pages asked for by the HTML itself.
  expect(await page.locator('head > style').count()).toBe(1);
  expect(await page.locator('head > link[rel="modulepreload"][href*="home-screen"]').count()).toBe(1);
  for (const path of firstPulls) {
    expect(await page.locator(`head > link[rel="preload"][as="fetch"][href="${path}"]`).count()).toBe(1);
  }
  // None of the scripts the page starts with holds zod (decision 113): its schemas load where they are used. Read from
  // the page as sent: the app adds preload links of its own later, as it loads code.
  const sent = await (await page.request.get('/')).text();
  const firstScripts = [
    ...sent.matchAll(/<(?:link rel="modulepreload"[^>]*href|script type="module"[^>]*src)="([^"]+)"/g),
  ].map((match) => match[1]);
  expect(firstScripts.length).toBeGreaterThan(3);
  const withZod: string[] = [];
  for (const script of firstScripts) {
    const answer = await page.request.get(script);
    expect(answer.ok()).toBe(true);
    if ((await answer.text()).includes('ZodError')) withZod.push(script);
  }
  expect(withZod).toEqual([]);
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  // The preview took the preloaded answers and the replication the preview's: one request each, no second ask.
  expect(asked.sort()).toEqual([...firstPulls].sort());
  // The database's code was asked for once a card was on the screen, not while the cards were still being drawn
  // (decision 112): the browser's own times of the card's presentation and of that request.
  const order = await page.evaluate(async () => {
    // Element Timing entries are read through an observer (buffered), not from the timeline's lists.
    const entries = await new Promise<PerformanceEntryList>((resolve) =>
      new PerformanceObserver((list, observer) => {
        observer.disconnect();
        resolve(list.getEntries());
      }).observe({ type: 'element', buffered: true }),
    );
    const card = entries.find((entry) => (entry as unknown as { identifier: string }).identifier === 'post-text');
    const code = performance
      .getEntriesByType('resource')
      .find((entry) => /\/local-store-[^/.]{8}\.js$/.test(entry.name));
    return { presented: (card as unknown as { renderTime: number } | undefined)?.renderTime, asked: code?.startTime };
  });
  expect(order.presented).toBeGreaterThan(0);
  expect(order.asked).toBeGreaterThanOrEqual(order.presented!);
  await phone.close();
});

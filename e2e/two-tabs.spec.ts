import type { BrowserContext, Locator, Page, Request } from '@playwright/test';
import { createStaffMember, expect, signIn, STAFF_PASSWORD, test, userIdOf } from './fixtures';
import { serverRows } from './support/offline';

/** How many times the journey reacts in two tabs; every run must end on the last choice. */
const RUNS = 20;

/** Every reaction row the server holds for a post, tombstones included. */
const serverReactions = (postId: string) =>
  serverRows('SELECT type, user_id AS userId, deleted FROM reactions WHERE post_id = ?', [postId]);

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });

/**
 * Counts the live streams a tab opens and the pushes it sends (only the tab that replicates does either), and keeps
 * the sync requests' outcomes, for the message of a run that does not settle.
 */
function countSyncTraffic(page: Page): { streams: number; pushes: number; log: string[] } {
  const traffic = { streams: 0, pushes: 0, log: [] as string[] };
  const started = Date.now();
  const note = (request: Request, outcome: string) => {
    const { pathname, search } = new URL(request.url());
    if (pathname.startsWith('/api/sync/'))
      traffic.log.push(`${Date.now() - started} ms ${pathname}${search} ${outcome}`);
  };
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname === '/api/sync/stream') traffic.streams += 1;
    if (/^\/api\/sync\/\w+\/push$/.test(pathname)) traffic.pushes += 1;
  });
  page.on(
    'requestfinished',
    (request) => void request.response().then((answer) => note(request, String(answer?.status()))),
  );
  page.on('requestfailed', (request) => note(request, `failed: ${request.failure()?.errorText ?? ''}`));
  return traffic;
}

/** Signs the user in in a first tab and opens a second one; both wait until they say the first sync is over. */
async function openTwoTabs(context: BrowserContext, email: string) {
  const tabA = await context.newPage();
  const syncA = countSyncTraffic(tabA);
  await signIn(tabA, email, STAFF_PASSWORD);
  const tabB = await context.newPage();
  const syncB = countSyncTraffic(tabB);
  await tabB.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
  await tabB.goto('/');
  // Each tab says its first sync is over, the tab that does not replicate included.
  for (const tab of [tabA, tabB]) await tab.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  return { tabA, tabB, syncA, syncB };
}

/** Writes a post as the signed-in user, by the page itself (the Wi-Fi proxy carries the browser's requests only). */
function writePost(page: Page, content: string): Promise<string> {
  return page.evaluate(async (text) => {
    const answer = await fetch('/api/posts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: text, category: 'company_announcement' }),
    });
    if (answer.status !== 201) throw new Error(`POST /api/posts answered ${answer.status}`);
    return ((await answer.json()) as { id: string }).id;
  }, content);
}

/** What a tab shows of the user's reaction: Love pressed, with only the user's count, and Like not. */
async function expectLoveShown(page: Page, text: string): Promise<void> {
  const card = postCard(page, text);
  await expect(card.getByRole('button', { name: 'Love (1)' })).toHaveAttribute('aria-pressed', 'true');
  await expect(card.getByRole('button', { name: 'Like', exact: true })).toHaveAttribute('aria-pressed', 'false');
}

test('two tabs of one user reacting offline end, once online, on the choice made last (decision 115)', async ({
  browser,
  wifi,
  wifiContext: context,
}) => {
  test.setTimeout(RUNS * 30_000);
  const member = await createStaffMember(browser, 'Tabitha');
  const userId = userIdOf(member.email);
  // One browser (one context, so one IndexedDB) with two tabs, and Wi-Fi that really goes (decision 102).
  const { tabA, tabB, syncA, syncB } = await openTwoTabs(context, member.email);

  for (let run = 1; run <= RUNS; run += 1) {
    const text = `Two tabs, run ${run} ${Math.random().toString(36).slice(2, 8)}`;
    const postId = await writePost(tabA, text);
    for (const tab of [tabA, tabB]) await expect(postCard(tab, text)).toBeVisible({ timeout: 15_000 });

    await wifi.off(context);
    for (const tab of [tabA, tabB]) await expect(tab.getByText('Working Offline')).toBeVisible();

    // "Like" in tab A, then at once "Love" in tab B: the last choice is Love, in both tabs.
    await postCard(tabA, text).getByRole('button', { name: 'Like', exact: true }).click();
    await expect(postCard(tabA, text).getByRole('button', { name: 'Like (1)' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await postCard(tabB, text).getByRole('button', { name: 'Love', exact: true }).click();
    for (const tab of [tabA, tabB]) await expectLoveShown(tab, text);

    const since = { a: syncA.log.length, b: syncB.log.length };
    await wifi.on(context);
    for (const tab of [tabA, tabB]) {
      // A run that does not settle says what each tab asked of the server since the Wi-Fi came back.
      const traffic = () =>
        `; server rows ${JSON.stringify(serverReactions(postId))}; tab A's sync requests since: ` +
        `${syncA.log.slice(since.a).join(', ')}; tab B's: ${syncB.log.slice(since.b).join(', ')}`;
      await expect(tab.getByText(/pending/), `run ${run}: nothing left to send`)
        .toHaveCount(0, { timeout: 20_000 })
        .catch((error: Error) => {
          throw new Error(`${error.message}${traffic()}`);
        });
    }
    // The server holds the last choice, as one row; both tabs show it.
    await expect
      .poll(() => serverReactions(postId), { message: `run ${run}: the server's reaction rows`, timeout: 15_000 })
      .toEqual([{ type: 'love', userId, deleted: 0 }]);
    for (const tab of [tabA, tabB]) await expectLoveShown(tab, text);
    // Still so once both tabs have settled: no later push put the older choice back.
    expect(serverReactions(postId), `run ${run}: the server's reaction rows at the end`).toEqual([
      { type: 'love', userId, deleted: 0 },
    ]);
  }
  // One replication for the browser: one of the two tabs listens to the server and pushes, the other never does.
  expect([syncA.streams, syncB.streams].filter((count) => count > 0)).toHaveLength(1);
  expect(Math.min(syncA.pushes, syncB.pushes)).toBe(0);
  expect(syncA.pushes + syncB.pushes).toBeGreaterThan(0);
});

test('when the tab that replicates closes, the other tab takes over and sends its reaction', async ({ browser }) => {
  const member = await createStaffMember(browser, 'Tobias');
  const userId = userIdOf(member.email);
  const context = await browser.newContext();
  const { tabA, tabB, syncA, syncB } = await openTwoTabs(context, member.email);
  await expect.poll(() => syncA.streams + syncB.streams).toBeGreaterThan(0);
  const [leader, other, otherSync] = syncA.streams > 0 ? [tabA, tabB, syncB] : [tabB, tabA, syncA];
  expect(otherSync.streams).toBe(0);

  await leader.close();
  const text = `The last tab open ${Math.random().toString(36).slice(2, 8)}`;
  const postId = await writePost(other, text);
  // The post reaches the remaining tab only through its own replication, now that it leads.
  await expect(postCard(other, text)).toBeVisible({ timeout: 15_000 });
  expect(otherSync.streams).toBeGreaterThan(0);
  await postCard(other, text).getByRole('button', { name: 'Like', exact: true }).click();
  await expect.poll(() => serverReactions(postId), { timeout: 15_000 }).toEqual([{ type: 'like', userId, deleted: 0 }]);
  await expect(other.getByText(/pending/)).toHaveCount(0);
  await context.close();
});

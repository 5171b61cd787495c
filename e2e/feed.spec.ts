import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import sharp from 'sharp';
import {
  ADMIN,
  createStaffMember,
  expect,
  expectPostSent,
  expectServerHolds,
  signIn,
  STAFF_PASSWORD,
  test,
  userIdOf,
} from './fixtures';
import { reloadOffline, serverRows, waitForServiceWorker } from './support/offline';

/** A short random word, so each journey finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

/** Small real PNG pictures made for the test (the server re-encodes what it receives), in the journey's own folder. */
async function makePictures(names: string[], width = 64): Promise<string[]> {
  const folder = test.info().outputPath('files');
  fs.mkdirSync(folder, { recursive: true });
  const colours = ['#4C307D', '#047857', '#B45309'];
  return Promise.all(
    names.map(async (name, i) => {
      const file = path.join(folder, name);
      await sharp({ create: { width, height: 48, channels: 3, background: colours[i % colours.length] } })
        .png()
        .toFile(file);
      return file;
    }),
  );
}

/** Writes a post through the composer; the category is picked from the composer's own select. */
async function writePost(page: Page, content: string, options: { category?: string; house?: string } = {}) {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(content);
  if (options.category) {
    await composer.getByLabel('Category').click();
    await page.getByRole('option', { name: options.category, exact: true }).click();
  }
  if (options.house) await composer.getByRole('group', { name: 'Houses' }).getByText(options.house).click();
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
}

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });

test('a post with two pictures, shown in the feed, opened larger and downloaded', async ({ page }) => {
  const text = `Garden party photos ${tag()}`;
  const pictures = await makePictures(['garden-1.png', 'garden-2.png']);
  await signIn(page, ADMIN.email, ADMIN.password);

  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(text);
  await composer.getByLabel('Add photos or files').setInputFiles(pictures);
  await expect(composer.getByRole('button', { name: 'Remove garden-1.png' })).toBeVisible();
  await expect(composer.getByText('2/20 files')).toBeVisible();
  await composer.getByRole('button', { name: 'Post', exact: true }).click();

  const card = postCard(page, text);
  await expect(card).toBeVisible();
  const images = card.getByRole('img', { name: /^Picture \d of 2 posted by/ });
  await expect(images).toHaveCount(2);
  await expect
    .poll(() => images.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth)))
    .toEqual([64, 64]);
  await expect(card.getByText('Pending sync')).toBeHidden();

  await card.getByRole('button', { name: /^Open picture 2 of 2/ }).click();
  const viewer = page.getByRole('dialog', { name: 'Picture 2 of 2' });
  await expect(viewer).toBeVisible();
  const download = page.waitForEvent('download');
  await viewer.getByRole('button', { name: 'Download' }).click();
  expect((await download).suggestedFilename()).toMatch(/^image-.+\.png$/);
  await expect(page.getByText('Image downloaded').first()).toBeVisible();
});

test('offline: a post and a comment survive a reload and reach a colleague once back online', async ({
  browser,
  wifi,
  wifiContext: context,
  wifiPage: page,
}) => {
  const member = await createStaffMember(browser, 'Olive');
  const text = `Written without Wi-Fi ${tag()}`;
  await signIn(page, member.email, STAFF_PASSWORD);
  await waitForServiceWorker(page);

  await wifi.off(context);
  await expect(page.getByText('Working Offline')).toBeVisible();
  await expect(page.getByText('Your changes will sync when reconnected')).toBeVisible();
  await expect(page.getByText('Synced', { exact: true })).toBeVisible();

  await writePost(page, text);
  const card = postCard(page, text);
  await expect(card.getByText('Pending sync')).toBeVisible();
  await card.getByRole('button', { name: '0 comments' }).click();
  await card.getByLabel('Write a comment').fill('Seen to while offline');
  await card.getByRole('button', { name: 'Add comment' }).click();
  await expect(card.getByText('Seen to while offline')).toBeVisible();
  await expect(page.getByText('2 pending')).toBeVisible();

  // A picture chosen offline waits in IndexedDB with its post; neither reaches the synced feed before it uploads.
  const [picture] = await makePictures(['offline-photo.png']);
  const withPicture = `Photo taken offline ${tag()}`;
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(withPicture);
  await composer.getByLabel('Add photos or files').setInputFiles([picture]);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const waiting = postCard(page, withPicture);
  await expect(waiting.getByText('Waiting to upload')).toBeVisible();
  await expect(waiting.getByText('offline-photo.png')).toBeVisible();
  await expect(page.getByText('3 pending')).toBeVisible();
  // The photo is then edited on the device (a gallery app saving over it): the post keeps the picture as it was
  // chosen (decision 162). The browser keeps a chosen file only as a reference to the device's copy.
  await makePictures(['offline-photo.png'], 80);

  // The service worker serves the app shell; the pending items come back from IndexedDB.
  await reloadOffline(page);
  await expect(page.getByText('Working Offline')).toBeVisible();
  await expect(page.getByText('3 pending')).toBeVisible();
  await expect(card.getByText('Pending sync')).toBeVisible();
  await expect(waiting.getByText('Waiting to upload')).toBeVisible();
  await card.getByRole('button', { name: '1 comment' }).click();
  await expect(card.getByText('Seen to while offline')).toBeVisible();

  const colleagueContext = await browser.newContext();
  const colleague = await colleagueContext.newPage();
  await signIn(colleague, ADMIN.email, ADMIN.password);
  await expect(
    colleague.getByText('Be the first to share an update with your team!').or(colleague.getByRole('article').first()),
  ).toBeVisible();
  await expect(postCard(colleague, text)).toHaveCount(0);

  await wifi.on(context);
  await expect(page.getByText('Working Offline')).toBeHidden();
  // Both the post and its comment have reached the server.
  await expect(card.getByText('Pending sync')).toHaveCount(0, { timeout: 15_000 });
  // The banner also waits for the picture's upload, which has the same 15 s as the checks below.
  await expect(page.getByText(/Syncing Changes/)).toBeHidden({ timeout: 15_000 });

  const arrived = postCard(colleague, text);
  await expect(arrived).toBeVisible({ timeout: 15_000 });
  await expect(arrived.getByRole('heading', { name: member.name })).toBeVisible();
  await arrived.getByRole('button', { name: '1 comment' }).click();
  await expect(arrived.getByText('Seen to while offline')).toBeVisible();

  await expect(waiting.getByText('Waiting to upload')).toBeHidden({ timeout: 15_000 });
  const photo = postCard(colleague, withPicture);
  await expect(photo).toBeVisible({ timeout: 15_000 });
  const image = photo.getByRole('img', { name: /^Picture 1 of 1 posted by/ });
  await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(64);
  await expect(page.getByText(/pending/)).toHaveCount(0);
  // The server holds each item written offline exactly once: both posts, the comment and the picture's upload.
  const memberId = userIdOf(member.email);
  await expectServerHolds(
    () => ({
      posts: serverRows('SELECT content, images FROM posts WHERE author_id = ? AND deleted = 0 ORDER BY content', [
        memberId,
      ]).map((post) => ({ content: post.content, pictures: (JSON.parse(String(post.images)) as string[]).length })),
      comments: serverRows('SELECT content FROM comments WHERE author_id = ? AND deleted = 0', [memberId]),
      uploads: serverRows('SELECT original_name AS name FROM uploads WHERE owner_id = ?', [memberId]),
    }),
    {
      // In the order of their text: "Photo taken offline" before "Written without Wi-Fi".
      posts: [
        { content: withPicture, pictures: 1 },
        { content: text, pictures: 0 },
      ],
      comments: [{ content: 'Seen to while offline' }],
      uploads: [{ name: 'offline-photo.png' }],
    },
  );
  await colleagueContext.close();
});

test('a new device shows the newest posts before its database opens, then the same cards take part (decision 97)', async ({
  browser,
}) => {
  const author = await createStaffMember(browser, 'Petra');
  const reader = await createStaffMember(browser, 'Quinn');
  const text = `Handover notes are in the office ${tag()}`;
  const authorContext = await browser.newContext();
  const authorPage = await authorContext.newPage();
  await signIn(authorPage, author.email, STAFF_PASSWORD);
  await writePost(authorPage, text);
  await expectPostSent(authorPage, text);
  await authorContext.close();

  // A new phone whose database code is slow to arrive: the storage worker is held back until released (the
  // service worker, which could serve it from its cache, is kept out of the way).
  const phone = await browser.newContext({ serviceWorkers: 'block' });
  const page = await phone.newPage();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/storage-worker-*.js', async (route) => {
    await held;
    await route.continue();
  });
  await signIn(page, reader.email, STAFF_PASSWORD);
  const card = postCard(page, text);
  await expect(card).toBeVisible();
  await expect(card.getByRole('heading', { name: author.name })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.dataset.sync)).toBeUndefined();
  // Read-only until the database is open: nothing a click could lose.
  await expect(card.getByRole('button', { name: 'Like', exact: true })).toBeDisabled();
  await expect(card.getByRole('button', { name: 'Comments' })).toBeDisabled();

  release();
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  await expect(card.getByRole('button', { name: '0 comments' })).toBeEnabled();
  await card.getByRole('button', { name: 'Like', exact: true }).click();
  await expect(card.getByRole('button', { name: 'Like (1)' })).toHaveAttribute('aria-pressed', 'true');
  await phone.close();
});

test('search, category, house and date filters, and the search palette', async ({ page }) => {
  const word = tag();
  await signIn(page, ADMIN.email, ADMIN.password);
  await writePost(page, `Payslips are out ${word}`, { category: 'Wages and HR' });
  await writePost(page, `Seaside trip ${word}`, { category: 'Residents Activities', house: 'Giles House' });
  await writePost(page, `Boiler fixed ${word}`, { category: 'Buildings and Maintenance' });
  const mine = page.getByRole('article').filter({ hasText: word });
  await expect(mine).toHaveCount(3);

  const filters = page.getByRole('region', { name: 'Filter posts' });
  await filters.getByRole('button', { name: 'Wages and HR' }).click();
  await expect(mine).toHaveCount(1);
  await expect(postCard(page, `Payslips are out ${word}`)).toBeVisible();
  await expect(filters.getByLabel('House')).toHaveCount(0);

  await filters.getByRole('button', { name: 'Residents Activities' }).click();
  await expect(mine).toHaveCount(1);
  await filters.getByLabel('House').click();
  await page.getByRole('option', { name: 'Tudor Way' }).click();
  await expect(mine).toHaveCount(0);
  await filters.getByLabel('House').click();
  // The open list marks the chosen house; closed, the select shows its name (decision 101).
  await expect(page.getByRole('option', { name: 'Tudor Way' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('option', { name: 'Giles House' }).click();
  await expect(page.getByRole('option')).toHaveCount(0);
  await expect(filters.getByLabel('House')).toHaveText('Giles House');
  await expect(postCard(page, `Seaside trip ${word}`)).toBeVisible();

  // Choosing a category resets house and date.
  await filters.getByRole('button', { name: 'All', exact: true }).click();
  await expect(filters.getByLabel('House')).toHaveCount(0);
  await expect(mine).toHaveCount(3);

  await expect(filters.getByLabel('Date')).toHaveText('All Time');
  await filters.getByLabel('Date').click();
  await page.getByRole('option', { name: 'Yesterday' }).click();
  await expect(filters.getByLabel('Date')).toHaveText('Yesterday');
  await expect(page.getByText('No posts found')).toBeVisible();
  await expect(page.getByText('Be the first to share an update with your team!')).toBeVisible();
  await filters.getByLabel('Date').click();
  await page.getByRole('option', { name: 'Today' }).click();
  await expect(mine).toHaveCount(3);

  await filters.getByLabel('Search posts').fill(`BOILER FIXED ${word}`);
  await expect(mine).toHaveCount(1);
  await filters.getByLabel('Search posts').fill(`nothing-like-this-${word}`);
  await expect(page.getByText('No posts found')).toBeVisible();
  await expect(page.getByText('Try adjusting your search terms.')).toBeVisible();
  await filters.getByRole('button', { name: 'Clear search' }).click();
  await expect(mine).toHaveCount(3);

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog');
  await palette.getByPlaceholder('Search posts, users, or content...').fill(`zz-${word}`);
  await expect(palette.getByText('No results found.')).toBeVisible();
  await palette.getByPlaceholder('Search posts, users, or content...').fill(`seaside trip ${word}`);
  await expect(palette.getByText('Search Results')).toBeVisible();
  await palette.getByRole('option', { name: new RegExp(`Seaside trip ${word}`) }).click();
  await expect(palette).toBeHidden();
  const chosen = postCard(page, `Seaside trip ${word}`);
  await expect(chosen).toHaveClass(/post-card-highlight/);
  await expect(chosen).toBeInViewport();
  await expect(chosen).not.toHaveClass(/post-card-highlight/, { timeout: 5000 });
});

test('markup in a post shows as text and never runs', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const word = tag();
  const content = `<script>alert(1)</script> <img src=x onerror=alert(1)> ${word}\nsee https://example.org/rota`;
  await signIn(page, ADMIN.email, ADMIN.password);
  await writePost(page, content);

  const card = postCard(page, word);
  await expect(card.getByText('<script>alert(1)</script> <img src=x onerror=alert(1)>')).toBeVisible();
  await expect(card.locator('script')).toHaveCount(0);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  const link = card.getByRole('link', { name: 'https://example.org/rota' });
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
});

test("reactions: everyone's counts and names on the bar, and the user's own toggle made offline reaches a colleague", async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
  browser,
}) => {
  const author = await createStaffMember(browser, 'Rhea');
  const colleagueMember = await createStaffMember(browser, 'Sami');
  const text = `Cake in the staff room ${tag()}`;
  await signIn(page, author.email, STAFF_PASSWORD);
  await waitForServiceWorker(page);
  await writePost(page, text);
  const card = postCard(page, text);
  await expectPostSent(page, text);

  const colleagueContext = await browser.newContext();
  const colleague = await colleagueContext.newPage();
  await signIn(colleague, colleagueMember.email, STAFF_PASSWORD);
  const theirCard = postCard(colleague, text);
  await theirCard.getByRole('button', { name: 'Like', exact: true }).click();
  await expect(theirCard.getByRole('button', { name: 'Like (1)' })).toHaveAttribute('aria-pressed', 'true');

  // The colleague's reaction reaches the author on the post itself.
  const like = card.getByRole('button', { name: 'Like (1)' });
  await expect(like).toHaveAttribute('aria-pressed', 'false', { timeout: 15_000 });
  await like.hover();
  await expect(page.getByRole('tooltip')).toHaveText(`Like: ${colleagueMember.name}`);

  // Offline, the author's own toggle shows at once and waits as an offline item.
  await wifi.off(context);
  await expect(page.getByText('Working Offline')).toBeVisible();
  await like.click();
  const liked = card.getByRole('button', { name: 'Like (2)' });
  await expect(liked).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByText('1 pending')).toBeVisible();
  await card.getByRole('button', { name: 'Love', exact: true }).click();
  await expect(card.getByRole('button', { name: 'Love (1)' })).toHaveAttribute('aria-pressed', 'true');
  await expect(card.getByRole('button', { name: 'Like (1)' })).toHaveAttribute('aria-pressed', 'false');
  await card.getByRole('button', { name: 'Love (1)' }).click();
  await card.getByRole('button', { name: 'Like (1)' }).click();
  await expect(liked).toHaveAttribute('aria-pressed', 'true');
  // The pointer leaves and comes back: the tooltip shows the names as they are now.
  await page.mouse.move(0, 0);
  await expect(page.getByRole('tooltip')).toHaveCount(0);
  await liked.hover();
  await expect(page.getByRole('tooltip')).toHaveText(`Like: You, ${colleagueMember.name}`);

  await wifi.on(context);
  await expect(page.getByText(/pending/)).toHaveCount(0, { timeout: 15_000 });
  const both = theirCard.getByRole('button', { name: 'Like (2)' });
  await expect(both).toBeVisible({ timeout: 15_000 });
  await both.hover();
  await expect(colleague.getByRole('tooltip')).toHaveText(`Like: You, ${author.name}`);
  await expect(theirCard.getByRole('button', { name: 'Love', exact: true })).toHaveAttribute('aria-pressed', 'false');
  // By keyboard: focus shows the tooltip, which also describes the button; Escape hides it and focus stays.
  await colleague.mouse.move(0, 0);
  await expect(colleague.getByRole('tooltip')).toHaveCount(0);
  await theirCard.getByRole('button', { name: 'Love', exact: true }).focus();
  await colleague.keyboard.press('Shift+Tab');
  await expect(both).toBeFocused();
  await expect(colleague.getByRole('tooltip')).toHaveText(`Like: You, ${author.name}`);
  await expect(both).toHaveAccessibleDescription(`Like: You, ${author.name}`);
  await colleague.keyboard.press('Escape');
  await expect(colleague.getByRole('tooltip')).toHaveCount(0);
  await expect(both).toBeFocused();
  // Of the four toggles made offline the server holds the last choice, once; the colleague's own stays as it was.
  await expectServerHolds(
    () =>
      serverRows(
        `SELECT r.type, r.user_id AS userId, r.deleted FROM reactions r JOIN posts p ON p.id = r.post_id
         WHERE p.content = ? ORDER BY r.user_id`,
        [text],
      ),
    [
      { type: 'like', userId: userIdOf(author.email), deleted: 0 },
      { type: 'like', userId: userIdOf(colleagueMember.email), deleted: 0 },
    ].sort((a, b) => (a.userId < b.userId ? -1 : 1)),
  );
  await colleagueContext.close();
});

test('a long feed of cards of different heights scrolls down and back up without a card jumping, overlapping or leaving a gap', async ({
  page,
}) => {
  const word = tag();
  await signIn(page, ADMIN.email, ADMIN.password);
  const count = 40;
  for (let i = 0; i < count; i += 1) {
    // Short and long cards mixed, so that the list's estimate of a card's height is wrong for most of them.
    const content =
      `Scroll ${word} number ${i}. ` + 'A line about the week. '.repeat(i % 5 === 0 ? 40 : 1 + (i % 3) * 6);
    const answer = await page.request.post('/api/posts', {
      data: { content, category: 'company_announcement' },
    });
    expect(answer.status()).toBe(201);
  }
  const filters = page.getByRole('region', { name: 'Filter posts' });
  await filters.getByLabel('Search posts').fill(`Scroll ${word}`);
  const mine = page.getByRole('article').filter({ hasText: `Scroll ${word}` });
  await expect(mine.first()).toContainText(`number ${count - 1}.`);

  const list = page.getByRole('feed', { name: 'Posts' });
  /** The mounted cards' tops and bottoms, in the list's order, and the list's own. */
  const geometry = () =>
    list.evaluate((feed) => {
      const box = (el: Element) => {
        const rect = el.getBoundingClientRect();
        return { top: rect.top, bottom: rect.bottom, text: el.textContent?.match(/number (\d+)\./)?.[1] ?? '' };
      };
      return { list: box(feed), cards: [...feed.querySelectorAll('article')].map(box) };
    });
  const settle = () => page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 150)));
  const expectInOrder = async () => {
    const { cards } = await geometry();
    for (let i = 1; i < cards.length; i += 1) {
      expect(Number(cards[i].text)).toBe(Number(cards[i - 1].text) - 1);
      // Cards never overlap; the gap between two is the list's spacing, the same everywhere.
      expect(cards[i].top - cards[i - 1].bottom).toBeGreaterThan(4);
      expect(cards[i].top - cards[i - 1].bottom).toBeLessThan(30);
    }
  };

  // Down to the oldest, a screen at a time.
  for (let step = 0; step < 60; step += 1) {
    await page.mouse.wheel(0, 500);
    await settle();
    await expectInOrder();
    if ((await geometry()).cards.some((card) => card.text === '0')) break;
  }
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await settle();
  await expectInOrder();
  // Every card has been measured: the list ends with its oldest card, not with room estimated for it.
  const bottom = await geometry();
  expect(bottom.cards.at(-1)!.text).toBe('0');
  expect(Math.abs(bottom.list.bottom - bottom.cards.at(-1)!.bottom)).toBeLessThan(30);

  // Back up: a card on the screen moves exactly as far as the page scrolls.
  for (let step = 0; step < 60; step += 1) {
    const before = await geometry();
    const watched = before.cards.find((card) => card.top >= 0 && card.top < 400);
    const scrolledBefore = await page.evaluate(() => window.scrollY);
    await page.mouse.wheel(0, -300);
    await settle();
    const after = await geometry();
    const moved = (await page.evaluate(() => window.scrollY)) - scrolledBefore;
    const same = watched && after.cards.find((card) => card.text === watched.text);
    if (same) expect(Math.abs(same.top - watched.top + moved)).toBeLessThan(2);
    await expectInOrder();
    if (moved === 0) break;
  }
  const top = await geometry();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  expect(top.cards[0].text).toBe(String(count - 1));
  expect(Math.abs(top.cards[0].top - top.list.top)).toBeLessThan(20);
});

test('the emoji picker: its reactions, search and "Frequently Used" write at the caret of a post and a comment, from data the app serves itself (decision 129)', async ({
  page,
}) => {
  const asked: string[] = [];
  page.on('request', (request) => {
    if (/\/emojibase\/|frimousse|emoji-picker/.test(request.url())) asked.push(new URL(request.url()).pathname);
  });
  await signIn(page, ADMIN.email, ADMIN.password);
  await waitForServiceWorker(page);
  // Nothing of the picker loads with the feed: its code and data come when it is first opened.
  expect(asked).toEqual([]);

  const composer = page.getByRole('region', { name: 'Create a post' });
  const field = composer.getByLabel('Post content');
  const text = `Well done team ${tag()}`;
  await field.fill(text);
  await field.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(4, 4));
  await composer.getByRole('button', { name: 'Add emoji' }).click();
  const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
  await expect(picker.getByLabel('Search emoji')).toBeFocused();
  const reactions = picker.getByRole('group', { name: 'Reactions' }).getByRole('button');
  await expect(reactions).toHaveCount(7);
  await picker.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: 'Folded hands' }).click();
  await expect(picker).toBeHidden();
  await expect(field).toHaveValue(text.replace('Well', 'Well🙏'));
  await expect(field).toBeFocused();

  // Search finds an emoji by its name; the one chosen before is now under "Frequently Used".
  await composer.getByRole('button', { name: 'Add emoji' }).click();
  await expect(
    picker.getByRole('group', { name: 'Frequently Used' }).getByRole('button', { name: 'Folded hands' }),
  ).toBeVisible();
  await picker.getByLabel('Search emoji').fill('party popper');
  await expect(picker.getByRole('group', { name: 'Reactions' })).toHaveCount(0);
  await picker.getByRole('gridcell', { name: 'Party popper', exact: true }).click();
  await expect(field).toHaveValue(text.replace('Well', 'Well🙏🎉'));
  // Escape closes it without a choice, and focus returns to its button.
  await composer.getByRole('button', { name: 'Add emoji' }).click();
  await expect(picker).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(picker).toBeHidden();
  await expect(composer.getByRole('button', { name: 'Add emoji' })).toBeFocused();
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const card = postCard(page, text.replace('Well', 'Well🙏🎉'));
  await expect(card).toBeVisible();

  // A comment takes one too.
  await card.getByRole('button', { name: /comments?$/i }).click();
  const comment = card.getByLabel('Write a comment');
  await comment.fill('Thank you');
  await card.getByRole('button', { name: 'Add emoji' }).click();
  await picker.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: 'Red heart' }).click();
  await expect(comment).toHaveValue('Thank you❤️');

  // The data is the app's own, and the service worker keeps it for offline use.
  expect(asked.filter((url) => url.startsWith('/emojibase/'))).toContain('/emojibase/en/data.json');
  const kept = await page.evaluate(async () => {
    const answers = await Promise.all(
      // Precached under a revision parameter (Workbox), which the match ignores.
      ['/emojibase/en/data.json', '/emojibase/en/messages.json'].map((url) =>
        caches.match(url, { ignoreSearch: true }),
      ),
    );
    return answers.map((answer) => answer?.ok ?? false);
  });
  expect(kept).toEqual([true, true]);
});

test('a post draft survives a reload, goes once posted, and is gone at sign-out, so the next person on the device never sees it (decision 129)', async ({
  page,
}) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  const composer = page.getByRole('region', { name: 'Create a post' });
  const field = composer.getByLabel('Post content');
  const text = `Rota changes for next week ${tag()}`;
  await field.fill(text);
  await composer.getByLabel('Category').click();
  await page.getByRole('option', { name: 'Wages and HR', exact: true }).click();
  await page.reload();
  await expect(field).toHaveValue(text);
  await expect(composer.getByLabel('Category')).toHaveText('Wages and HR');

  // Posted: the draft goes.
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(postCard(page, text)).toBeVisible();
  await page.reload();
  await expect(postCard(page, text)).toBeVisible();
  await expect(field).toHaveValue('');
  // The post itself must have reached the server, and the device must know it (the server's copy pulled back, after
  // the reload's first sync): with an unsent item, sign-out asks first (decision 114).
  await expectServerHolds(() => serverRows('SELECT count(*) AS n FROM posts WHERE content = ?', [text])[0]?.n, 1);
  await expect(postCard(page, text).getByText('Pending sync')).toHaveCount(0, { timeout: 20_000 });

  // Signed out with a draft: nothing of it stays on the device.
  const unsent = `Half-written note ${tag()}`;
  await field.fill(unsent);
  await page.getByRole('button', { name: /profile menu|account menu|Open profile/i }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
  const stored = await page.evaluate(() => Object.values(localStorage).join('\n'));
  expect(stored).not.toContain(unsent);
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(field).toHaveValue('');
});

test("a new device's preview shows the user's own reaction, so its count does not drop and come back when the database opens (decision 129)", async ({
  browser,
}) => {
  const member = await createStaffMember(browser, 'Rhea');
  const text = `Thank you for the flowers ${tag()}`;
  const firstContext = await browser.newContext();
  const first = await firstContext.newPage();
  await signIn(first, member.email, STAFF_PASSWORD);
  await writePost(first, text);
  await postCard(first, text).getByRole('button', { name: 'Love', exact: true }).click();
  const postId = () => serverRows('SELECT id FROM posts WHERE content = ?', [text])[0]?.id;
  await expectServerHolds(
    () => serverRows('SELECT type FROM reactions WHERE post_id = ?', [postId()]).map((row) => row.type),
    ['love'],
  );
  await firstContext.close();

  // A new phone whose database code is held back: the preview shows the post as the server has it.
  const phone = await browser.newContext({ serviceWorkers: 'block' });
  const page = await phone.newPage();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/storage-worker-*.js', async (route) => {
    await held;
    await route.continue();
  });
  await signIn(page, member.email, STAFF_PASSWORD);
  const love = postCard(page, text).getByRole('button', { name: 'Love (1)' });
  await expect(love).toHaveAttribute('aria-pressed', 'true');
  await expect(love).toBeDisabled();
  expect(await page.evaluate(() => document.documentElement.dataset.sync)).toBeUndefined();

  release();
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  await expect(love).toBeEnabled();
  await expect(love).toHaveAttribute('aria-pressed', 'true');
  await love.click();
  await expect(postCard(page, text).getByRole('button', { name: 'Love', exact: true })).toHaveAttribute(
    'aria-pressed',
    'false',
  );
  await phone.close();
});

import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import { ADMIN, createStaffMember, expect, expectPostSent, expectServerHolds, signInSynced, test } from './fixtures';
import { serverRows } from './support/offline';

/** What the feed and the edit dialog say when a delete on the server won over the user's change (decision 117). */
const NOT_KEPT = 'A post you changed while offline was deleted; your changes were not kept';
const DELETED_WHILE_EDITING = 'This post was deleted while you were editing it; your changes cannot be saved.';

/** A short random word, so each journey finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

/**
 * What the server's own database holds of a journey's post and words: the post (live or not; a deleted one keeps no
 * content, decision 126) with any other post holding the words, and the live comments holding them.
 */
function serverHolds(word: string, postId: string): { posts: Record<string, unknown>[]; comments: number } {
  return {
    posts: serverRows('SELECT content, deleted FROM posts WHERE id = ? OR content LIKE ?', [postId, `%${word}%`]),
    comments: serverRows('SELECT id FROM comments WHERE content LIKE ? AND deleted = 0', [`%${word}%`]).length,
  };
}

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });

/** Writes a post and answers its id once the server holds it. */
async function writePost(page: Page, content: string): Promise<string> {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(content);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
  await expectPostSent(page, content);
  const [stored] = serverRows('SELECT id FROM posts WHERE content = ?', [content]);
  return String(stored.id);
}

/** A signed-in browser with its first sync done. */
async function device(
  browser: Browser,
  account: { email: string; password: string },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInSynced(page, account);
  return { context, page };
}

/** The administrator deletes the post holding `text` from their own feed. */
async function deleteAsAdmin(admin: Page, text: string): Promise<void> {
  const card = postCard(admin, text);
  await expect(card).toBeVisible({ timeout: 15_000 });
  await card.getByRole('button', { name: 'Delete post' }).click();
  await admin.getByRole('alertdialog', { name: 'Delete this post?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(card).toHaveCount(0);
}

test('an edit and a comment made offline on a post deleted meanwhile are shown to their author, who can copy them', async ({
  browser,
  wifi,
  wifiContext: context,
  wifiPage: page,
}) => {
  const member = await createStaffMember(browser, 'Dora');
  await signInSynced(page, member);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { context: adminContext, page: admin } = await device(browser, ADMIN);
  const word = tag();
  const text = `Night shift handover ${word}`;
  const postId = await writePost(page, text);

  await wifi.off(context);
  await expect(page.getByText('Working Offline')).toBeVisible();
  const edited = `Night shift handover at 21:30, not 22:00 ${word}`;
  const card = postCard(page, text);
  await card.getByRole('button', { name: 'Edit post' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Post' });
  await dialog.getByLabel('Content').fill(edited);
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(dialog).toHaveCount(0);
  const comment = `I will bring the keys ${word}`;
  const editedCard = postCard(page, edited);
  await editedCard.getByRole('button', { name: '0 comments' }).click();
  await editedCard.getByLabel('Write a comment').fill(comment);
  await editedCard.getByRole('button', { name: 'Add comment' }).click();
  await expect(editedCard.getByText(comment)).toBeVisible();
  await expect(page.getByText('2 pending')).toBeVisible();

  await deleteAsAdmin(admin, text);
  await expect.poll(() => serverHolds(word, postId).posts.map((post) => post.deleted)).toEqual([1]);

  await wifi.on(context);
  const notice = page.getByRole('status').filter({ hasText: NOT_KEPT });
  await expect(notice).toBeVisible({ timeout: 20_000 });
  await expect(notice.getByText(edited)).toBeVisible();
  await expect(notice.getByText(comment)).toBeVisible();
  await expect(postCard(page, edited)).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Sync status' })).toHaveCount(0, { timeout: 15_000 });

  // Copy puts the user's own words on the clipboard.
  await notice.getByRole('listitem').filter({ hasText: comment }).getByRole('button', { name: 'Copy' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(comment);
  await notice.getByRole('listitem').filter({ hasText: edited }).getByRole('button', { name: 'Copy' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(edited);

  // Delete won: the server has the post deleted, with neither the edit nor the comment.
  await expectServerHolds(() => serverHolds(word, postId), { posts: [{ content: '', deleted: 1 }], comments: 0 });

  // The notice outlives a reload until dismissed.
  await page.reload();
  await expect(page.getByText(NOT_KEPT)).toBeVisible();
  await page.getByRole('status').filter({ hasText: NOT_KEPT }).getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByText(NOT_KEPT)).toHaveCount(0);
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  await expect(page.getByText(NOT_KEPT)).toHaveCount(0);

  await adminContext.close();
});

test('the edit dialog of a post deleted meanwhile stays open, says so and keeps the typed text', async ({
  browser,
}) => {
  const member = await createStaffMember(browser, 'Enid');
  const { context, page } = await device(browser, member);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { context: adminContext, page: admin } = await device(browser, ADMIN);
  const word = tag();
  const text = `Fridge in house 2 is fixed ${word}`;
  const postId = await writePost(page, text);

  await postCard(page, text).getByRole('button', { name: 'Edit post' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Post' });
  const typed = `Fridge in house 2 is fixed, the freezer is not ${word}`;
  await dialog.getByLabel('Content').fill(typed);

  await deleteAsAdmin(admin, text);
  await expect(dialog.getByText(DELETED_WHILE_EDITING)).toBeVisible({ timeout: 15_000 });
  await expect(postCard(page, text)).toHaveCount(0);
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Content')).toHaveValue(typed);
  await expect(dialog.getByRole('button', { name: 'Save Changes' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Copy text' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(typed);

  await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(dialog).toHaveCount(0);
  expect(serverHolds(word, postId).posts).toEqual([{ content: '', deleted: 1 }]);
  await adminContext.close();
  await context.close();
});

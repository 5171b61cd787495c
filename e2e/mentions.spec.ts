import {
  createStaffMember,
  expect,
  expectServerHolds,
  signIn,
  signInSynced,
  STAFF_PASSWORD,
  test,
  userIdOf,
} from './fixtures';
import { expectNoSeriousViolations } from './a11y';
import { serverRows } from './support/offline';

test('a colleague mentioned in a comment written offline is told once: the bell says who and opens the post', async ({
  browser,
  wifi,
  wifiContext: writerContext,
  wifiPage: writer,
}) => {
  const author = await createStaffMember(browser, 'Mentioning');
  const colleague = await createStaffMember(browser, 'Mentioned');
  const word = Math.random().toString(36).slice(2, 8);
  const postText = `Saturday rota ${word}`;
  const commentText = `can you cover the late shift ${word}?`;

  // The colleague writes a post and stays signed in, so the bell hears of the mention live.
  const readerContext = await browser.newContext();
  const reader = await readerContext.newPage();
  await signIn(reader, colleague.email, STAFF_PASSWORD);
  expect(
    (await reader.request.post('/api/posts', { data: { content: postText, category: 'shifts_lifts' } })).status(),
  ).toBe(201);

  // The author's device holds the post and the directory, then loses its connection.
  await signInSynced(writer, author);
  const card = writer.getByRole('article').filter({ hasText: postText });
  await expect(card).toBeVisible();
  await wifi.off(writerContext);
  await card.getByRole('button', { name: /comments?$/ }).click();
  const field = card.getByLabel('Write a comment');
  await field.pressSequentially(`@${colleague.name}`);
  const list = card.getByRole('listbox', { name: 'Mention a colleague or house' });
  await expect(list.getByRole('option', { name: `@${colleague.name}` })).toBeVisible();
  await expect(field).toHaveAttribute('aria-expanded', 'true');
  await expect(field).toHaveAttribute('aria-activedescendant', /-0$/);
  await expectNoSeriousViolations(writer, 'the mention suggestions');
  await field.press('Enter');
  await expect(list).toHaveCount(0);
  await expect(field).toHaveValue(`@${colleague.name} `);
  await field.pressSequentially(commentText);
  await card.getByRole('button', { name: 'Add comment' }).click();
  const written = card.getByRole('listitem').filter({ hasText: commentText });
  await expect(written.locator('.mention-chip')).toHaveText(`@${colleague.name}`);
  await expect(written.getByText('Pending sync')).toBeVisible();
  const colleagueId = userIdOf(colleague.email);
  const comments = () =>
    serverRows('SELECT mentions FROM comments WHERE content = ?', [`@${colleague.name} ${commentText}`]);
  expect(comments()).toEqual([]);

  // Back online, the comment goes once and tells the colleague once.
  await wifi.on(writerContext);
  await expectServerHolds(comments, [{ mentions: JSON.stringify([colleagueId]) }]);
  await expectServerHolds(
    () => serverRows('SELECT deleted FROM mention_entries WHERE user_id = ?', [colleagueId]),
    [{ deleted: 0 }],
  );

  // The colleague's bell names the author; choosing it opens the post.
  const bell = reader.getByRole('button', { name: /^Notifications/ });
  await expect(bell).toHaveAccessibleName('Notifications, 1 unviewed');
  await bell.click();
  await reader
    .getByRole('menuitem')
    .filter({ hasText: `${author.name} mentioned you` })
    .click();
  const readerCard = reader.getByRole('article').filter({ hasText: postText });
  await expect(readerCard).toHaveClass(/post-card-highlight/);
  await expect(bell).toHaveAccessibleName('Notifications');
  await expectServerHolds(
    () => serverRows('SELECT viewed_at IS NOT NULL AS seen FROM mention_entries WHERE user_id = ?', [colleagueId]),
    [{ seen: 1 }],
  );
  await readerContext.close();
});

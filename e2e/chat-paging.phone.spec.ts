import { ADMIN, createStaffMember, expect, seedConversation, signIn, test } from './fixtures';

test('a conversation of 500 messages opens on the newest, renders a page of them, and scrolling up reads earlier ones', async ({
  browser,
  page,
}) => {
  const staff = await createStaffMember(browser, 'Paging');
  await seedConversation(ADMIN.email, staff.email, 500);

  await signIn(page, staff.email, staff.password);
  await page.goto('/?openChat=true');
  const row = page.getByRole('list', { name: 'Conversations' }).getByRole('button').first();
  // The newest message is also the last one pulled: once it shows, the whole conversation is on the phone.
  await expect(row).toContainText('Seeded message 500', { timeout: 30_000 });
  await row.click();

  const list = page.getByRole('list', { name: 'Messages' });
  const message = (n: number) => list.getByText(`Seeded message ${n}`, { exact: true });
  await expect(message(500)).toBeInViewport();
  await expect(message(499)).toBeVisible();
  const rendered = () => list.getByRole('listitem').count();
  expect(await rendered()).toBeLessThan(500);
  expect(await rendered()).toBeGreaterThanOrEqual(50);
  await expect(message(1)).toHaveCount(0);

  // Scrolled to the top, the page before is read and added above; the messages in view stay in view.
  const oldestShown = await list.locator('.chat-bubble').first().innerText();
  const oldest = Number(/Seeded message (\d+)/.exec(oldestShown)?.[1]);
  expect(oldest).toBeGreaterThan(1);
  await list.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(message(oldest - 1)).toBeAttached();
  await expect(message(oldest)).toBeInViewport();
  expect(await list.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  await expect(message(500)).not.toBeInViewport();
  expect(await rendered()).toBeLessThan(500);

  // Further up, page by page, to the very first message.
  await expect
    .poll(
      async () => {
        await list.evaluate((el) => el.scrollTo({ top: 0 }));
        return message(1).count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
  await expect(list.getByText('Loading earlier messages...')).toHaveCount(0);
  expect(await rendered()).toBe(500);

  // A message sent from far up the history brings the newest into view again.
  await page.getByRole('textbox', { name: 'Message' }).fill('Back at the newest');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(list.getByRole('listitem').filter({ hasText: 'Back at the newest' })).toBeInViewport();
});

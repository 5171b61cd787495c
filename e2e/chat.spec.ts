import type { Page } from '@playwright/test';
import { ADMIN, createStaffMember, expect, expectServerHolds, openChatWith, signIn, test, userIdOf } from './fixtures';
import { serverRows } from './support/offline';

const panel = (page: Page) => page.getByRole('dialog', { name: /Messages|New Chat|Administrator|Tester/ });

async function send(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

test('two colleagues chat live, and messages sent offline or on a lost answer arrive once', async ({
  browser,
  wifi,
  wifiContext: staffContext,
  wifiPage: colleague,
}) => {
  const staff = await createStaffMember(browser, 'Chatty');
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  // Two devices, signed in side by side.
  await Promise.all([signIn(admin, ADMIN.email, ADMIN.password), signIn(colleague, staff.email, staff.password)]);

  // The new-chat list never offers oneself.
  await colleague.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await colleague.getByRole('button', { name: 'New chat', exact: true }).click();
  await expect(colleague.getByRole('list', { name: 'Colleagues' })).not.toContainText(staff.name);
  await colleague.keyboard.press('Escape');

  await openChatWith(admin, staff.name);
  await send(admin, 'Can you cover the late shift at Giles House?');
  const mine = admin.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: 'late shift' });
  await expect(mine).toContainText(/\d{2}:\d{2}/);

  // Live: the colleague's Chat button shows the unread message without any reload.
  const chatButton = colleague.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ });
  await expect(chatButton).toHaveAccessibleName('Chat, 1 unread');
  await chatButton.click();
  const row = colleague.getByRole('list', { name: 'Conversations' }).getByRole('button').first();
  await expect(row).toContainText('Can you cover the late shift at Giles House?');
  await row.click();
  await expect(colleague.getByRole('list', { name: 'Messages' })).toContainText('late shift');
  // Opening it marked it read.
  await colleague.getByRole('button', { name: 'Back to conversations' }).click();
  await expect(row).not.toHaveAccessibleName(/unread/);
  await row.click();

  // Offline: the colleague writes; the message waits, then goes once on reconnecting.
  await wifi.off(staffContext);
  await send(colleague, 'Yes, I can do it');
  await expect(colleague.getByText('Waiting to send')).toBeVisible();
  await colleague.waitForTimeout(500);
  await expect(admin.getByRole('list', { name: 'Messages' })).not.toContainText('Yes, I can do it');
  await wifi.on(staffContext);
  await expect(admin.getByRole('list', { name: 'Messages' })).toContainText('Yes, I can do it');
  await expect(colleague.getByText('Waiting to send')).toHaveCount(0);
  await admin.waitForTimeout(1000);
  await expect(admin.getByRole('list', { name: 'Messages' }).getByText('Yes, I can do it')).toHaveCount(1);

  // Online again, the answer to the next message is lost on the way back: the server stores it, the app sends
  // it again, and it is still held once.
  const lost = wifi.loseNextAnswer('/api/sync/messages/push');
  await send(colleague, 'I will bring the rota too');
  await lost;
  await expect(colleague.getByText('Waiting to send')).toHaveCount(0, { timeout: 20_000 });
  await expect(admin.getByRole('list', { name: 'Messages' }).getByText('I will bring the rota too')).toHaveCount(1);
  await expectServerHolds(
    () => serverRows('SELECT content FROM messages WHERE sender_id = ? ORDER BY created_at', [userIdOf(staff.email)]),
    [{ content: 'Yes, I can do it' }, { content: 'I will bring the rota too' }],
  );

  // `?openChat=true` opens the panel.
  await colleague.goto('/?openChat=true');
  await expect(colleague.getByRole('list', { name: 'Conversations' })).toBeVisible();
  await expect(panel(colleague)).toBeVisible();

  // Without the sidebar (the admin page), the header keeps its Chat button on a large screen.
  await admin.goto('/admin');
  await admin.getByRole('banner').getByRole('button', { name: /^Chat/ }).click();
  await expect(admin.getByRole('list', { name: 'Conversations' })).toContainText('I will bring the rota too');

  await adminContext.close();
});

test('New Chat finds a colleague with its search box; a conversation opened and left empty is not kept, and its first message, with an emoji, starts it (decision 129)', async ({
  browser,
  page,
}) => {
  const colleague = await createStaffMember(browser, 'Findable');
  const lastName = colleague.name.split(' ')[1];
  await signIn(page, ADMIN.email, ADMIN.password);
  const openNewChat = async () => {
    await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
    await page.getByRole('button', { name: 'New chat', exact: true }).first().click();
  };
  await openNewChat();
  await page.getByLabel('Search staff').fill(lastName.toUpperCase());
  const found = page.getByRole('list', { name: 'Colleagues' }).getByRole('button');
  await expect(found).toHaveCount(1);
  await expect(found).toContainText(colleague.name);
  await page.getByLabel('Search staff').fill(`${lastName} nobody`);
  await expect(page.getByText('No colleagues match your search.')).toBeVisible();
  await page.getByLabel('Search staff').fill(lastName);
  await found.click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();

  // Left without a word: not in the list, now or after a reload, and nothing reached the server.
  await page.getByRole('button', { name: 'Back to conversations' }).click();
  await expect(panel(page)).toBeVisible();
  await expect(panel(page)).not.toContainText(colleague.name);
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await expect(panel(page)).toBeVisible();
  await expect(panel(page)).not.toContainText(colleague.name);
  const colleagueId = userIdOf(colleague.email);
  const conversationsWith = () =>
    serverRows('SELECT id FROM conversations WHERE user_a_id = ? OR user_b_id = ?', [colleagueId, colleagueId]).length;
  expect(conversationsWith()).toBe(0);

  // The first message, with an emoji from the picker, starts the conversation.
  await page.keyboard.press('Escape');
  await openNewChat();
  await page.getByLabel('Search staff').fill(lastName);
  await found.click();
  await page.getByRole('textbox', { name: 'Message' }).fill('Thanks for today');
  await panel(page).getByRole('button', { name: 'Add emoji' }).click();
  await page
    .getByRole('dialog', { name: 'Choose an emoji' })
    .getByRole('group', { name: 'Reactions' })
    .getByRole('button', { name: 'Thumbs up' })
    .click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('Thanks for today👍');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('Thanks for today👍');
  await expectServerHolds(conversationsWith, 1);
  await page.getByRole('button', { name: 'Back to conversations' }).click();
  await expect(page.getByRole('list', { name: 'Conversations' })).toContainText(colleague.name);
});

import type { Page } from '@playwright/test';
import { ADMIN, createStaffMember, expect, openChatWith, signIn, test } from './fixtures';

const panel = (page: Page) => page.getByRole('dialog', { name: /Messages|New Chat|Administrator|Tester/ });

async function send(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

test('two colleagues chat live, and a message sent offline arrives once when the sender reconnects', async ({
  browser,
  wifi,
}) => {
  const staff = await createStaffMember(browser, 'Chatty');
  const adminContext = await browser.newContext();
  const staffContext = await browser.newContext({ proxy: wifi.proxy });
  const admin = await adminContext.newPage();
  const colleague = await staffContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await signIn(colleague, staff.email, staff.password);

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

  // `?openChat=true` opens the panel.
  await colleague.goto('/?openChat=true');
  await expect(colleague.getByRole('list', { name: 'Conversations' })).toBeVisible();
  await expect(panel(colleague)).toBeVisible();

  // Without the sidebar (the admin page), the header keeps its Chat button on a large screen.
  await admin.goto('/admin');
  await admin.getByRole('banner').getByRole('button', { name: /^Chat/ }).click();
  await expect(admin.getByRole('list', { name: 'Conversations' })).toContainText('Yes, I can do it');

  await adminContext.close();
  await staffContext.close();
});

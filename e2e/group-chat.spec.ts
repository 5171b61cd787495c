import type { Browser, Page } from '@playwright/test';
import { houseChatIdOf } from '../schema/chat-rules';
import { ADMIN, createStaffMember, expect, expectServerHolds, signInSynced, test, userIdOf } from './fixtures';
import { serverRows } from './support/offline';

const HOUSE = 'Flora Innes House';

/** Puts staff in a house through the admin API, as the admin page's Houses dialog does (e2e/accounts.spec.ts walks it). */
async function putInHouse(browser: Browser, emails: string[]): Promise<void> {
  const context = await browser.newContext();
  try {
    const signedIn = await context.request.post('/api/auth/login', {
      data: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(signedIn.status()).toBe(200);
    for (const email of emails) {
      const res = await context.request.put(`/api/admin/users/${userIdOf(email)}/houses`, {
        data: { houses: [HOUSE] },
      });
      expect(res.status(), `${email} joins ${HOUSE}`).toBe(200);
    }
  } finally {
    await context.close();
  }
}

async function openHouseChat(page: Page): Promise<void> {
  await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: new RegExp(HOUSE) })
    .click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

test('three colleagues of a house: messages written offline in the house chat arrive once, in order, and are "Seen by 2"', async ({
  browser,
  wifi,
  wifiContext,
  wifiPage: ann,
}) => {
  const people = await Promise.all(['Ann', 'Ben', 'Cat'].map((name) => createStaffMember(browser, name)));
  await putInHouse(
    browser,
    people.map((person) => person.email),
  );
  const [annAccount, benAccount, catAccount] = people;
  const benContext = await browser.newContext();
  const catContext = await browser.newContext();
  const ben = await benContext.newPage();
  const cat = await catContext.newPage();
  await Promise.all([signInSynced(ann, annAccount), signInSynced(ben, benAccount), signInSynced(cat, catAccount)]);

  // Ann opens her house chat, loses the connection and writes three messages; they wait on her phone.
  await openHouseChat(ann);
  await wifi.off(wifiContext);
  const lines = ['Offline note one', 'Offline note two', 'Offline note three'];
  for (const line of lines) await send(ann, line);
  await expect(ann.getByText('Waiting to send')).toHaveCount(3);
  await wifi.on(wifiContext);
  await expect(ann.getByText('Waiting to send')).toHaveCount(0, { timeout: 20_000 });

  // Ben and Cat see the house chat unread, then each message once and in order, under Ann's name.
  for (const page of [ben, cat]) {
    await expect(
      page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }),
    ).toHaveAccessibleName('Chat, 3 unread');
    await openHouseChat(page);
    const messages = page.getByRole('list', { name: 'Messages' });
    await expect(messages.getByRole('listitem').filter({ hasText: 'Offline note' })).toHaveCount(3);
    const texts = await messages.getByRole('listitem').filter({ hasText: 'Offline note' }).allTextContents();
    expect(texts.map((text) => lines.findIndex((line) => text.includes(line)))).toEqual([0, 1, 2]);
    expect(texts.every((text) => text.includes(annAccount.name))).toBe(true);
  }

  // Both opened it: Ann sees "Seen by 2" and, on a tap, their names.
  const last = ann.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: lines[2] });
  await last.getByRole('button', { name: 'Seen by 2' }).click();
  const names = ann.getByRole('list', { name: 'Seen by' });
  await expect(names).toContainText(benAccount.name);
  await expect(names).toContainText(catAccount.name);

  // The server holds each message exactly once.
  await expectServerHolds(
    () =>
      serverRows('SELECT content FROM messages WHERE conversation_id = ? ORDER BY created_at', [houseChatIdOf(HOUSE)]),
    lines.map((content) => ({ content })),
  );
  await benContext.close();
  await catContext.close();
});

import type { Browser, Page } from '@playwright/test';
import sharp from 'sharp';
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

/** Every record of the app's local stores on a page, as text (what anyone with the phone could read). */
function deviceText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases())
      .map((info) => info.name ?? '')
      .filter((name) => name.startsWith('rxdb-'));
    const texts = await Promise.all(
      names.map(
        (name) =>
          new Promise<string>((resolve) => {
            const open = indexedDB.open(name);
            open.onsuccess = () => {
              const db = open.result;
              const stores = [...db.objectStoreNames];
              if (stores.length === 0) return resolve('');
              const tx = db.transaction(stores);
              const parts: string[] = [];
              for (const store of stores) {
                const all = tx.objectStore(store).getAll();
                all.onsuccess = () => parts.push(JSON.stringify(all.result));
              }
              tx.oncomplete = () => {
                db.close();
                resolve(parts.join(''));
              };
            };
            open.onerror = () => resolve('');
          }),
      ),
    );
    return texts.join('');
  });
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

  // Search in chat finds Ann's message on Ben's phone, with its conversation, and opens it.
  await ben.getByRole('button', { name: 'Back to conversations' }).click();
  await ben.getByLabel('Search messages').fill('NOTE two');
  const found = ben.getByRole('list', { name: 'Found messages' }).getByRole('button');
  await expect(found).toHaveCount(1);
  await expect(found).toContainText(HOUSE);
  await expect(found).toContainText('Offline note two');
  await found.click();
  await expect(ben.getByRole('dialog', { name: HOUSE })).toBeVisible();
  await expect(ben.getByRole('list', { name: 'Messages' })).toContainText('Offline note two');

  // The server holds each message exactly once.
  await expectServerHolds(
    () =>
      serverRows('SELECT content FROM messages WHERE conversation_id = ? ORDER BY created_at', [houseChatIdOf(HOUSE)]),
    lines.map((content) => ({ content })),
  );
  await benContext.close();
  await catContext.close();
});

test('a group started with New Group; a member removed while their phone is offline loses it on reconnecting', async ({
  browser,
  wifi,
  wifiContext,
  wifiPage: cat,
}) => {
  const [annAccount, benAccount, catAccount] = await Promise.all(
    ['Ann', 'Ben', 'Cat'].map((name) => createStaffMember(browser, name)),
  );
  const annContext = await browser.newContext();
  const ann = await annContext.newPage();
  await Promise.all([signInSynced(ann, annAccount), signInSynced(cat, catAccount)]);

  // Ann starts "Night team" with Ben and Cat: a name is required first.
  await ann.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await ann.getByRole('button', { name: 'New group' }).click();
  const pick = ann.getByRole('list', { name: 'Colleagues to add' });
  await pick.getByText(benAccount.name).click();
  await pick.getByText(catAccount.name).click();
  await ann.getByRole('button', { name: /^Start group/ }).click();
  await expect(ann.getByRole('alert')).toHaveText('A group needs a name');
  await ann.getByLabel('Group name').fill('Night team');
  await ann.getByRole('button', { name: 'Start group with 2' }).click();
  await expect(ann.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect(ann.getByRole('dialog', { name: 'Night team' })).toBeVisible();
  await send(ann, 'Welcome to the night team');

  // Cat has it, then her phone goes offline and she writes; meanwhile Ann removes her.
  await cat.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  const catRow = cat.getByRole('list', { name: 'Conversations' }).getByRole('button', { name: /Night team/ });
  await catRow.click();
  await expect(cat.getByRole('list', { name: 'Messages' })).toContainText('Welcome to the night team');
  await wifi.off(wifiContext);
  await send(cat, 'Written on the bus');
  await expect(cat.getByText('Waiting to send')).toHaveCount(1);
  await ann.getByRole('button', { name: 'Members' }).click();
  await ann.getByRole('button', { name: `Remove ${catAccount.name}` }).click();
  await expect(ann.getByRole('list', { name: 'Members' })).not.toContainText(catAccount.name);

  // Back online, the group and its messages leave Cat's phone; the server never took her message.
  await wifi.on(wifiContext);
  // The open group closes to the list, which no longer has it.
  await expect(cat.getByRole('dialog', { name: 'Messages' })).toBeVisible({ timeout: 20_000 });
  await expect(cat.getByRole('dialog', { name: 'Messages' })).not.toContainText('Night team');
  // Nothing of its words stays in the phone's own store.
  await expect
    .poll(() => deviceText(cat), { timeout: 20_000 })
    .not.toMatch(/Written on the bus|Welcome to the night team/);
  await expectServerHolds(
    () => serverRows('SELECT content FROM messages WHERE content = ?', ['Written on the bus']),
    [],
  );
  // Her words are hers to copy, in the list's notice, not in the store (decision 150).
  await expect(cat.getByRole('region', { name: 'Messages not sent' })).toContainText('Written on the bus');
  await annContext.close();
});

test('a mention in a group reaches the bell of the one mentioned, which opens the group', async ({
  browser,
  wifiPage: ann,
}) => {
  const [annAccount, benAccount, catAccount] = await Promise.all(
    ['Ann', 'Ben', 'Cat'].map((name) => createStaffMember(browser, name)),
  );
  const benContext = await browser.newContext();
  const catContext = await browser.newContext();
  const ben = await benContext.newPage();
  const cat = await catContext.newPage();
  await Promise.all([signInSynced(ann, annAccount), signInSynced(ben, benAccount), signInSynced(cat, catAccount)]);
  const made = await ann.request.post('/api/conversations', {
    data: { memberIds: [userIdOf(benAccount.email), userIdOf(catAccount.email)], name: 'Day team' },
  });
  expect(made.status()).toBe(201);

  // Ann types @ and Ben's first letters in the group: the members are offered; she picks Ben.
  await ann.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await ann
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: /Day team/ })
    .click();
  const field = ann.getByRole('textbox', { name: 'Message' });
  await field.pressSequentially(`@${benAccount.name.slice(0, 3)}`);
  const list = ann.getByRole('listbox', { name: 'Mention a colleague or house' });
  await expect(list.getByRole('option', { name: `@${benAccount.name}` })).toBeVisible();
  await expect(list.getByRole('option')).toHaveCount(1);
  await field.press('Enter');
  await expect(field).toHaveValue(`@${benAccount.name} `);
  await field.pressSequentially('can you take the 2pm visit?');
  await field.press('Enter');
  const sent = ann.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: '2pm visit' });
  await expect(sent.locator('.mention-chip')).toHaveText(`@${benAccount.name}`);
  await expectServerHolds(
    () => serverRows('SELECT mentions FROM messages WHERE content LIKE ?', ['%can you take the 2pm visit?']),
    [{ mentions: JSON.stringify([userIdOf(benAccount.email)]) }],
  );

  // Ben's bell says Ann mentioned him in a message; choosing it opens the group on the message.
  const bell = ben.getByRole('button', { name: /^Notifications/ });
  await expect(bell).toHaveAccessibleName('Notifications, 1 unviewed');
  await bell.click();
  await ben
    .getByRole('menuitem')
    .filter({ hasText: `${annAccount.name} mentioned you` })
    .filter({ hasText: 'In a message' })
    .click();
  await expect(ben.getByRole('dialog', { name: 'Day team' })).toBeVisible();
  await expect(
    ben
      .getByRole('list', { name: 'Messages' })
      .getByRole('listitem')
      .filter({ hasText: '2pm visit' })
      .locator('.mention-chip'),
  ).toHaveText(`@${benAccount.name}`);

  // Cat, in the group but not mentioned, is told nothing.
  await expect(cat.getByRole('button', { name: /^Notifications/ })).toHaveAccessibleName('Notifications');
  await benContext.close();
  await catContext.close();
});

test('a photo sent offline in a group arrives once, and the other member sees it', async ({
  browser,
  wifi,
  wifiContext,
  wifiPage: ann,
}) => {
  const [annAccount, benAccount, deeAccount] = await Promise.all(
    ['Ann', 'Ben', 'Dee'].map((name) => createStaffMember(browser, name)),
  );
  const benContext = await browser.newContext();
  const ben = await benContext.newPage();
  await Promise.all([signInSynced(ann, annAccount), signInSynced(ben, benAccount)]);
  const made = await ann.request.post('/api/conversations', {
    data: { memberIds: [userIdOf(benAccount.email), userIdOf(deeAccount.email)], name: 'Garden team' },
  });
  expect(made.status()).toBe(201);
  const groupId = String(((await made.json()) as { id: string }).id);

  await ann.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await ann
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: /Garden team/ })
    .click();
  await expect(ann.getByRole('textbox', { name: 'Message' })).toBeVisible();

  // Offline, Ann attaches a photo and sends it with a line: it waits on her phone with its file.
  await wifi.off(wifiContext);
  const photo = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2e8b57' } })
    .png()
    .toBuffer();
  await ann.getByLabel('Photos or files to attach').setInputFiles({
    name: 'roses.png',
    mimeType: 'image/png',
    buffer: photo,
  });
  await expect(ann.getByRole('list', { name: 'Photos and files to send' })).toContainText('roses.png');
  await send(ann, 'The roses are out');
  await expect(ann.getByText('Waiting to upload')).toBeVisible();
  expect(serverRows('SELECT id FROM messages WHERE conversation_id = ?', [groupId])).toEqual([]);

  // Back online, it goes once, with its photo; Ben sees the picture.
  await wifi.on(wifiContext);
  await expect(ann.getByText('Waiting to upload')).toHaveCount(0, { timeout: 20_000 });
  await expectServerHolds(
    () =>
      serverRows('SELECT content, json_array_length(images) AS photos FROM messages WHERE conversation_id = ?', [
        groupId,
      ]),
    [{ content: 'The roses are out', photos: 1 }],
  );
  expect(serverRows('SELECT count(*) AS n FROM uploads WHERE conversation_id = ?', [groupId])).toEqual([{ n: 1 }]);
  await ben.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await ben
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: /Garden team/ })
    .click();
  const received = ben
    .getByRole('list', { name: 'Messages' })
    .getByRole('listitem')
    .filter({ hasText: 'The roses are out' });
  const picture = received.getByRole('link', { name: 'Open picture 1 full size' });
  await expect(picture).toBeVisible();
  await expect
    .poll(() => picture.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth))
    .toBeGreaterThan(0);
  await benContext.close();
});

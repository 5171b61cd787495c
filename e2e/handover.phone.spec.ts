import type { Page } from '@playwright/test';
import { ADMIN, createStaffMember, expect, expectServerHolds, signInSynced, test, userIdOf } from './fixtures';
import { expectNoSeriousViolations } from './a11y';
import { readableOnDevice, serverRows } from './support/offline';

const HOUSE = 'Giles House';
const OTHER = 'Tudor Way';

/** The notes with these words on the server. */
function serverNotes(content: string) {
  return serverRows('SELECT house, shift FROM handovers WHERE content = ?', [content]);
}

/** Opens Handover from the phone's menu, as a member would. */
async function openHandover(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Handover' }).click();
  await expect(page.getByRole('heading', { name: 'Handover', exact: true })).toBeVisible();
}

test('a night-shift member writes a handover note offline; the morning shift reads it, another house never sees it', async ({
  browser,
  wifi,
  wifiContext: nightContext,
  wifiPage: night,
}) => {
  const writer = await createStaffMember(browser, 'Night');
  const reader = await createStaffMember(browser, 'Morning');
  const outsider = await createStaffMember(browser, 'Elsewhere');
  const adminContext = await browser.newContext();
  const api = adminContext.request;
  expect((await api.post('/api/auth/login', { data: { email: ADMIN.email, password: ADMIN.password } })).status()).toBe(
    200,
  );
  for (const [member, houses] of [
    [writer, [HOUSE]],
    [reader, [HOUSE]],
    [outsider, [OTHER]],
  ] as const) {
    const res = await api.put(`/api/admin/users/${userIdOf(member.email)}/houses`, { data: { houses } });
    expect(res.status()).toBe(200);
  }
  await adminContext.close();
  const words = `Night ${Math.random().toString(36).slice(2, 8)}: Mary slept well, fluids charted at 6`;

  // The night shift writes the note with the Wi-Fi off: it waits on the phone, then goes once.
  await signInSynced(night, writer);
  await openHandover(night);
  const form = night.getByRole('form', { name: 'Write a handover note' });
  await expect(form).toBeVisible();
  await wifi.off(nightContext);
  await form.getByRole('combobox', { name: 'Shift' }).click();
  await night.getByRole('option', { name: 'Night' }).click();
  await form.getByLabel('Note').fill(words);
  await form.getByRole('button', { name: 'Save note' }).click();
  const card = night.getByRole('article').filter({ hasText: words });
  await expect(card).toContainText('Waiting to be sent');
  expect(serverNotes(words)).toEqual([]);
  await wifi.on(nightContext);
  await expect(card).not.toContainText('Waiting to be sent');
  await expectServerHolds(() => serverNotes(words), [{ house: HOUSE, shift: 'Night' }]);

  // The morning shift of the same house marks it read; the writer sees the count.
  const morningContext = await browser.newContext();
  const morning = await morningContext.newPage();
  await signInSynced(morning, reader);
  await openHandover(morning);
  const theirs = morning.getByRole('article').filter({ hasText: words });
  await theirs.getByRole('button', { name: 'Mark as read' }).click();
  await expect(theirs.getByRole('button', { name: 'Mark as read' })).toHaveCount(0);
  await expectServerHolds(
    () =>
      serverRows(
        'SELECT r.user_id FROM handover_reads r JOIN handovers h ON h.id = r.handover_id WHERE h.content = ?',
        [words],
      ),
    [{ user_id: userIdOf(reader.email) }],
  );
  // Showing the note on the morning phone is audited, once for its few openings (decision 142).
  const [{ id: noteId }] = serverRows('SELECT id FROM handovers WHERE content = ?', [words]);
  const auditContext = await browser.newContext();
  const audit = auditContext.request;
  expect(
    (await audit.post('/api/auth/login', { data: { email: ADMIN.email, password: ADMIN.password } })).status(),
  ).toBe(200);
  const openings = async () => {
    const query = new URLSearchParams({ action: 'handover.viewed', actor: userIdOf(reader.email), limit: '200' });
    const res = await audit.get(`/api/admin/audit?${query}`);
    const { entries } = (await res.json()) as { entries: { target: { id: string } | null }[] }; // GET /api/admin/audit
    return entries.filter((entry) => entry.target?.id === noteId).length;
  };
  await expect.poll(openings, { timeout: 20_000 }).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await openings()).toBe(1);
  await auditContext.close();
  await expect(card.getByRole('button', { name: /^Read by 1 of \d+ on shift$/ })).toBeVisible();
  await card.getByRole('button', { name: /^Read by 1 of/ }).click();
  await expect(card).toContainText(`${reader.name}: read`);
  await expectNoSeriousViolations(night, 'the handover screen');
  await morningContext.close();

  // A member of another house never sees it.
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await signInSynced(other, outsider);
  await openHandover(other);
  await expect(other.getByText(`No handover notes for ${OTHER} yet`)).toBeVisible();
  await expect(other.getByText(words)).toHaveCount(0);
  await otherContext.close();

  // After sign-out nothing of it is left in the phone's IndexedDB.
  await night.getByRole('button', { name: 'Profile menu' }).click();
  await night.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(night.getByText('You have been logged out successfully')).toBeVisible();
  const left = await readableOnDevice(night);
  expect(left.stores).toEqual([]);
  expect(left.kept).not.toContain('Mary slept well');
  expect(serverNotes(words)).toHaveLength(1);
});

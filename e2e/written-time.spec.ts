import { formatDate, formatDateTime, formatTime } from '../schema/format';
import { ADMIN, ageAccount, createStaffMember, expect, openChatWith, signIn, test, writeUrgentPost } from './fixtures';
import { serverRows } from './support/offline';

const HOUR = 3_600_000;

/** Exactly one stored row, once the server holds it (the offline rule of docs/testing-offline.md). */
async function theOneRow(sql: string, args: unknown[]): Promise<Record<string, number>> {
  await expect.poll(() => serverRows(sql, args).length, { timeout: 20_000 }).toBe(1);
  const rows = serverRows(sql, args);
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, number>;
}

test('an acknowledgement, a post and a message written offline show and report the time they were written', async ({
  browser,
  wifi,
  wifiContext: staffContext,
  wifiPage: phone,
}) => {
  const staff = await createStaffMember(browser, 'Written');
  // An account made an hour ago: nothing it writes can be older than that (decision 119).
  ageAccount(staff.email, HOUR);
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await signIn(phone, staff.email, staff.password);
  const word = Math.random().toString(36).slice(2, 8);

  // The alert reaches the phone; the phone loses its Wi-Fi and the care worker acknowledges it two seconds after
  // the alert went out, by the phone's clock.
  await writeUrgentPost(admin, `Boiler fault ${word}`);
  const modal = phone.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toContainText(`Boiler fault ${word}`);
  const [alert] = serverRows(
    `SELECT p.id AS postId, u.id AS userId, a.created_at AS alertedAt FROM posts p
     JOIN acknowledgements a ON a.post_id = p.id JOIN users u ON u.id = a.user_id
     WHERE p.content = ? AND u.email = ?`,
    [`Boiler fault ${word}`, staff.email],
  ) as { postId: string; userId: string; alertedAt: number }[];
  await wifi.off(staffContext);
  const acknowledgedAt = alert.alertedAt + 2_000;
  await phone.clock.setFixedTime(acknowledgedAt);
  await modal.getByRole('button', { name: 'I have read this message' }).click();
  await expect(phone.getByText('Saved — will send when back online').first()).toBeVisible();

  // Still offline, the phone's clock reads three minutes ago while a post and a message are written.
  const writtenAt = Date.now() - 3 * 60_000;
  await phone.clock.setFixedTime(writtenAt);
  const composer = phone.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(`Garden tidy done ${word}`);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  // The composer empties once the post is in the phone's store. Its card is looked for once sent: the feed orders by
  // createdAt, the phone's clock until the server's comes back, so it sits three minutes down a long feed till then.
  await expect(composer.getByLabel('Post content')).toHaveValue('');
  await openChatWith(phone, 'System');
  await phone.getByRole('textbox', { name: 'Message' }).fill(`Back at six ${word}`);
  await phone.getByRole('textbox', { name: 'Message' }).press('Enter');
  const bubble = phone.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: word });
  await expect(bubble.getByText('Waiting to send')).toBeVisible();
  // Nothing has left the phone; the Wi-Fi comes back only once the acknowledgement's time has passed for real.
  expect(serverRows('SELECT id FROM posts WHERE content = ?', [`Garden tidy done ${word}`])).toHaveLength(0);
  await expect.poll(() => Date.now() > acknowledgedAt + 3_000).toBe(true);
  await wifi.on(staffContext);

  // The server holds each once, with the phone's times beside its own.
  const ack = await theOneRow(
    `SELECT a.written_at AS writtenAt, a.acknowledged_at AS arrivedAt FROM acknowledgements a
     JOIN users u ON u.id = a.user_id WHERE a.post_id = ? AND u.email = ? AND a.acknowledged_at IS NOT NULL`,
    [alert.postId, staff.email],
  );
  expect(ack.writtenAt).toBe(acknowledgedAt);
  expect(ack.arrivedAt).toBeGreaterThan(acknowledgedAt + 2_000);
  const post = await theOneRow(
    'SELECT written_at AS writtenAt, created_at AS arrivedAt FROM posts WHERE content = ? AND deleted = 0',
    [`Garden tidy done ${word}`],
  );
  const message = await theOneRow(
    'SELECT written_at AS writtenAt, created_at AS arrivedAt FROM messages WHERE content = ?',
    [`Back at six ${word}`],
  );
  for (const item of [post, message]) {
    expect(item.writtenAt).toBe(writtenAt);
    expect(item.arrivedAt - item.writtenAt).toBeGreaterThan(2 * 60_000);
  }

  // The phone shows when each was written, and when it was sent.
  const sentTime = (at: number) => (formatDate(at) === formatDate(writtenAt) ? formatTime(at) : formatDateTime(at));
  await expect(bubble).toContainText(`${formatTime(writtenAt)} · sent ${formatTime(message.arrivedAt)}`);
  await expect(bubble.getByText('Waiting to send')).toHaveCount(0);
  await phone.keyboard.press('Escape');
  // The care worker looks for the post by its words: a long shared feed may hold it below the screen.
  await phone.getByRole('region', { name: 'Filter posts' }).getByLabel('Search posts').fill(`Garden tidy done ${word}`);
  const card = phone.getByRole('article').filter({ hasText: `Garden tidy done ${word}` });
  await expect(card).toContainText(`${formatDateTime(writtenAt)} · sent ${sentTime(post.arrivedAt)}`);
  await expect(card.getByText('Pending sync')).toHaveCount(0);

  // The report counts the acknowledgement from when it was made, not from when it arrived.
  const adminCard = admin.getByRole('article').filter({ hasText: `Boiler fault ${word}` });
  await adminCard.getByRole('button', { name: 'Acknowledgements' }).click();
  const row = admin.getByRole('dialog', { name: 'Acknowledgements' }).getByRole('row').filter({ hasText: staff.name });
  await expect(row).toContainText(formatDateTime(acknowledgedAt));
  await expect(row).toContainText('2 s');
  const report = (await (await admin.request.get(`/api/alerts/${alert.postId}/report`)).json()) as {
    groups: {
      members: { userId: string; acknowledgedAt: string; receivedAt: string; secondsToAcknowledge: number }[];
    }[];
  };
  const member = report.groups.flatMap((g) => g.members).find((m) => m.userId === alert.userId);
  expect(member).toMatchObject({
    acknowledgedAt: new Date(acknowledgedAt).toISOString(),
    receivedAt: new Date(ack.arrivedAt).toISOString(),
    secondsToAcknowledge: 2,
  });

  await adminContext.close();
});

import {
  ADMIN,
  createStaffMember,
  expect,
  expectServerHolds,
  setStaffHouses,
  signIn,
  test,
  userIdOf,
} from './fixtures';
import { expectNoSeriousViolations } from './a11y';
import { serverRows } from './support/offline';

/** The member's confirmation rows of the post with this text on the server: confirmed or not. */
function serverConfirmations(content: string, userId: string) {
  return serverRows(
    `SELECT a.acknowledged_at IS NOT NULL AS confirmed, a.deleted FROM acknowledgements a
     JOIN posts p ON p.id = a.post_id WHERE p.content = ? AND a.user_id = ? AND a.confirm = 1`,
    [content, userId],
  );
}

test('a policy post asks one house to confirm; a member confirms offline and the report shows it once', async ({
  browser,
  wifi,
  wifiContext: staffContext,
  wifiPage: member,
}) => {
  const staff = await createStaffMember(browser, 'Confirming');
  const outsider = await createStaffMember(browser, 'Elsewhere');
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await setStaffHouses(admin, staff.email, ['Giles House']);
  await setStaffHouses(admin, outsider.email, ['Tudor Way']);
  await signIn(member, staff.email, staff.password);
  const word = Math.random().toString(36).slice(2, 8);
  const policy = `New medication policy ${word}: read before your next shift`;

  // The admin requires confirmation from Giles House, due a week from now.
  const composer = admin.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(policy);
  await composer.getByLabel('Requires confirmation').click();
  const due = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  await composer.getByLabel('Confirm by (optional)').fill(due);
  await composer.getByText('Chosen houses').click();
  await composer.getByRole('group', { name: 'Houses asked' }).getByText('Giles House').click();
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');

  // The member sees it in "To confirm"; it never blocks the screen.
  await member.getByRole('button', { name: /^To confirm, 1 post$/ }).click();
  await member.getByRole('menuitem').filter({ hasText: policy }).click();
  const card = member.getByRole('article').filter({ hasText: policy });
  await expect(card).toContainText('Please read and confirm');
  await expectNoSeriousViolations(member, 'a post to confirm');
  await expect(member.getByRole('alertdialog')).toHaveCount(0);
  await expect(member.getByRole('region', { name: 'Create a post' }).getByLabel('Requires confirmation')).toHaveCount(
    0,
  );

  // Offline, the confirmation waits on the device, then goes once.
  await wifi.off(staffContext);
  await card.getByRole('button', { name: 'I have read and understood' }).click();
  await expect(card).toContainText('Confirmed');
  await expect(card).toContainText('Saved — will send when back online');
  await expect(member.getByRole('button', { name: 'To confirm', exact: true })).toBeVisible();
  const staffId = userIdOf(staff.email);
  expect(serverConfirmations(policy, staffId)).toEqual([{ confirmed: 0, deleted: 0 }]);
  await wifi.on(staffContext);
  await expect(card).not.toContainText('Saved — will send when back online');
  await expectServerHolds(() => serverConfirmations(policy, staffId), [{ confirmed: 1, deleted: 0 }]);

  // The admin's report shows the confirmation, with the CSV.
  const adminCard = admin.getByRole('article').filter({ hasText: policy });
  await adminCard.getByRole('button', { name: 'Confirmation report' }).click();
  const report = admin.getByRole('dialog', { name: 'Confirmation report' });
  // Staff of earlier journeys may work in Giles House too: only this member has confirmed the new post.
  await expect(report).toContainText(/^Confirmation report1 of \d+ confirmed/);
  await expect(report.getByRole('row').filter({ hasText: outsider.name })).toHaveCount(0);
  await expect(report.getByRole('row').filter({ hasText: staff.name })).toContainText(
    /\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/,
  );
  await expectNoSeriousViolations(admin, 'confirmation report');
  await expect(report.getByRole('link', { name: 'Download CSV' })).toHaveAttribute('href', /\/confirmations\.csv$/);
  await admin.keyboard.press('Escape');

  // A member of another house never sees the request.
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await signIn(other, outsider.email, outsider.password);
  await expect(other.getByRole('article').filter({ hasText: policy })).toBeVisible();
  await expect(other.getByRole('article').filter({ hasText: policy })).not.toContainText('Please read and confirm');
  await expect(other.getByRole('button', { name: 'To confirm', exact: true })).toBeVisible();
  expect(serverConfirmations(policy, userIdOf(outsider.email))).toEqual([]);

  await otherContext.close();
  await adminContext.close();
});

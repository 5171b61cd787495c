import { request, type APIRequestContext, type Page } from '@playwright/test';
import { RESIDENT_TEXT_FIELDS } from '../schema/residents';
import { ADMIN, createStaffMember, expect, signIn, test } from './fixtures';

/** Each payload sets window.__pwned if it ever runs; rendered as text it is harmless. */
const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';
const LINK = '<a href="javascript:window.__pwned=1">click me</a>';
const BARE_LINK = 'javascript:window.__pwned=1';
const ALL = `${SCRIPT} ${IMG} ${LINK} ${BARE_LINK}`;

declare global {
  interface Window {
    __pwned?: number;
    __cspRan?: number;
  }
}

/** Nothing ran, no `javascript:` link exists, and no injected <img src=x> was ever fetched. */
async function expectInert(page: Page, fetchedX: string[]) {
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(await page.locator('a[href^="javascript:" i], [onerror], [onload], [onclick]').count()).toBe(0);
  expect(fetchedX).toEqual([]);
}

async function ok(res: Awaited<ReturnType<APIRequestContext['post']>>) {
  expect(res.ok(), `${res.url()}: ${res.status()} ${await res.text()}`).toBe(true);
  return res.json() as Promise<Record<string, unknown>>;
}

test('script and event-handler payloads in every text field render as text and never run', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const member = await createStaffMember(browser, 'Mallory');
  const fetchedX: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/x') fetchedX.push(r.url());
  });
  await signIn(page, ADMIN.email, ADMIN.password);
  const adminId = (await ok(await page.request.get('/api/auth/user'))).id as string;

  // First and last name, through the admin's edit call.
  const staffList = (await (await page.request.get('/api/admin/users')).json()) as { id: string; email: string }[];
  const memberId = staffList.find((u) => u.email === member.email)!.id;
  await ok(
    await page.request.patch(`/api/admin/users/${memberId}/edit`, {
      data: { email: member.email, firstName: IMG, lastName: SCRIPT, role: 'staff' },
    }),
  );

  // The member fills every other field: post, file name, comment, chat message, suggestion, resident.
  const api = await request.newContext({ baseURL });
  await ok(await api.post('/api/auth/login', { data: { email: member.email, password: member.password } }));
  const pdf = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
  const fileName = `${IMG}.pdf`;
  const upload = await ok(
    await api.post('/api/uploads', {
      multipart: { file: { name: fileName, mimeType: 'application/pdf', buffer: Buffer.from(pdf) } },
    }),
  );
  const marker = `Hostile post ${Math.random().toString(36).slice(2, 8)}`;
  const post = await ok(
    await api.post('/api/posts', { data: { content: `${marker} ${ALL}`, attachments: [{ id: upload.id }] } }),
  );
  await ok(await api.post(`/api/posts/${post.id as string}/comments`, { data: { content: `Comment ${ALL}` } }));
  const conversation = await ok(await api.post('/api/conversations', { data: { participantId: adminId } }));
  await ok(
    await api.post(`/api/conversations/${encodeURIComponent(conversation.id as string)}/messages`, {
      data: { content: `Message ${ALL}` },
    }),
  );
  const suggestionTitle = `Idea ${SCRIPT}`;
  await ok(
    await api.post('/api/suggestions', { data: { title: suggestionTitle, content: `Body ${ALL}`, category: 'other' } }),
  );
  const residentName = `Resident ${IMG}`;
  const residentText = Object.fromEntries(RESIDENT_TEXT_FIELDS.map((field) => [field, `${field} ${ALL}`]));
  await ok(await api.post('/api/residents', { data: { name: residentName, likeToBeCall: SCRIPT, ...residentText } }));
  await api.dispose();

  // The admin writes a post through the real composer too.
  const typed = `Typed ${Math.random().toString(36).slice(2, 8)} ${ALL}`;
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(typed);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(page.getByRole('article').filter({ hasText: typed.slice(0, 12) })).toContainText(typed);

  // The feed: the post, its author's name, the file name and the comment.
  await page.reload();
  const card = page.getByRole('article').filter({ hasText: marker });
  await expect(card).toContainText(`${marker} ${ALL}`);
  await expect(card).toContainText(`${IMG} ${SCRIPT}`);
  await expect(card.getByText(fileName, { exact: true })).toBeVisible();
  await card.getByRole('button', { name: /1 comment/ }).click();
  await expect(card.getByText(`Comment ${ALL}`, { exact: true })).toBeVisible();
  await expectInert(page, fetchedX);

  // The chat panel: the conversation list and the open conversation.
  await page.goto('/?openChat=true');
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations).toContainText(`Message ${ALL}`);
  await expect(conversations).toContainText(IMG);
  await conversations.getByRole('button').filter({ hasText: 'Message' }).first().click();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText(`Message ${ALL}`);
  await expectInert(page, fetchedX);

  // Residents: the card and the full profile, every text section.
  await page.goto('/residents');
  await page.getByRole('button', { name: `View ${residentName}` }).click();
  const profile = page.getByRole('dialog', { name: residentName });
  await expect(profile).toBeVisible();
  for (const field of RESIDENT_TEXT_FIELDS) await expect(profile).toContainText(`${field} ${ALL}`);
  await expect(profile).toContainText(SCRIPT);
  await expectInert(page, fetchedX);
  await page.keyboard.press('Escape');

  // The admin page: the staff list shows the names, the suggestions list the title and description.
  await page.goto('/admin');
  await expect(page.getByText(`${IMG} ${SCRIPT}`).first()).toBeVisible();
  const suggestions = page.getByRole('region', { name: /Staff Suggestions/ });
  await expect(suggestions).toContainText(suggestionTitle);
  await expect(suggestions).toContainText(`Body ${ALL}`);
  await expectInert(page, fetchedX);
});

test('the Content Security Policy blocks an inline script and an inline handler injected into the page', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByRole('link', { name: /Sign In with Email/ })).toBeVisible();
  const result = await page.evaluate(async () => {
    const violations: string[] = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
    const script = document.createElement('script');
    script.textContent = 'window.__cspRan = 1;';
    document.body.appendChild(script);
    const holder = document.createElement('div');
    holder.innerHTML = '<img src="data:," onerror="window.__cspRan = 2">';
    document.body.appendChild(holder);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { ran: window.__cspRan ?? null, violations };
  });
  expect(result.ran).toBeNull();
  expect(result.violations).toContain('script-src-elem');
  expect(result.violations).toContain('script-src-attr');
});

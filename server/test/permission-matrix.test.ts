/**
 * The permission matrix (docs/security.md): every route the server mounts, called by every kind of caller,
 * with the status written down here by hand. The route list comes from the app itself, so a route added
 * without a row here fails the first test, naming it.
 */
import { constants, createECDH, createPublicKey, publicEncrypt, randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdOf, houseChatIdOf } from '../../schema/chat';
import { keptLabel } from '../../schema/kept';
import {
  acknowledgementId,
  PUSHABLE_COLLECTIONS,
  reactionId,
  SERVED_COLLECTIONS,
  SERVER_FIRST_COLLECTIONS,
  SYNC_COLLECTIONS,
} from '../../schema/sync';
import { createApp } from '../app';
import { findAcknowledgement } from '../features/alerts/alerts.queries';
import { syncAlertAudience } from '../features/alerts/alerts.service';
import { startSession } from '../features/auth/auth.service';
import { keptPublicKey } from '../features/kept/kept.service';
import { countSubscriptionsOf } from '../features/push/push.queries';
import { startTestServer, TEST_PASSWORD, TestClient, type TestResponse, type TestServer } from './test-server';
import { statement } from '../db/client';

const CALLERS = ['signedOut', 'pending', 'deactivated', 'staff', 'otherStaff', 'admin', 'systemAdmin'] as const;
type Caller = (typeof CALLERS)[number];
type Expected = Record<Caller, number>;

/** What one cell sends: a concrete path and, for calls with a body, JSON or a multipart form. */
interface Call {
  path: string;
  json?: unknown;
  form?: () => FormData;
  /** The live stream: opened, its status read, closed. */
  stream?: true;
  /** A browser navigation answered with a redirect: its status is read, the redirect not followed. */
  navigation?: true;
}

interface Row {
  /** Method and the route's pattern exactly as the app registers it (`PATCH /api/posts/:id`). */
  route: string;
  /** For `:collection` routes: the collection this row covers. */
  collection?: string;
  expected: Expected;
  /** Builds fresh records for one cell, so one caller's change never decides another's answer. */
  call: (caller: Caller) => Call | Promise<Call>;
  /** The status of `{}` (or an empty form) sent by the first caller allowed through: the body is checked. */
  emptyBody?: number;
  /** Checks after the call that a refused caller changed nothing. */
  unchanged?: (caller: Caller, status: number) => void | Promise<void>;
}

/** Open to everyone, signed in or not. */
const anyone = (status: number): Expected => ({
  signedOut: status,
  pending: status,
  deactivated: status,
  staff: status,
  otherStaff: status,
  admin: status,
  systemAdmin: status,
});
/** Every active signed-in user; no session (signed out, pending, deactivated) is 401. */
const activeUsers = (status: number): Expected => ({
  signedOut: 401,
  pending: 401,
  deactivated: 401,
  staff: status,
  otherStaff: status,
  admin: status,
  systemAdmin: status,
});
/** System administrators only (docs/behaviour.md, "Administration"). */
const systemAdmins = (status: number): Expected => ({
  signedOut: 401,
  pending: 401,
  deactivated: 401,
  staff: 403,
  otherStaff: 403,
  admin: 403,
  systemAdmin: status,
});

let t: TestServer;
const users = {} as Record<Exclude<Caller, 'signedOut'> | 'peer' | 'author', { id: string; email: string }>;
let residentPhotoPath = '';
let png: Buffer;

/** A client with a session of its own for that caller: logout in one cell cannot sign out the next. */
async function clientAs(caller: Caller): Promise<TestClient> {
  const client = t.client();
  if (caller !== 'signedOut') {
    // A session row made directly: the pending and deactivated users cannot sign in, but a session that
    // outlived an approval being withdrawn or a deactivation must still be refused.
    const token = await startSession(t.server.deps, users[caller].id, { ip: '127.0.0.1', userAgent: null });
    client.cookie = `sp_session=${token}`;
  }
  return client;
}

async function send(caller: Caller, method: string, call: Call): Promise<TestResponse> {
  const client = await clientAs(caller);
  if (call.stream) {
    // The stream never ends: read its status and close it; an error answer is read whole.
    const controller = new AbortController();
    const res = await fetch(client.base + call.path, {
      headers: client.cookie ? { cookie: client.cookie } : {},
      signal: controller.signal,
    });
    const text = res.ok ? '' : await res.text();
    controller.abort();
    return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers, text } as TestResponse;
  }
  if (call.navigation) {
    const res = await fetch(client.base + call.path, {
      redirect: 'manual',
      headers: client.cookie ? { cookie: client.cookie } : {},
    });
    return { status: res.status, body: {}, headers: res.headers, text: await res.text() } as TestResponse;
  }
  if (call.form) return client.sendForm(method, call.path, call.form());
  return client.request(method, call.path, call.json);
}

const pngForm =
  (field: string, name = 'picture.png') =>
  () => {
    const form = new FormData();
    form.append(field, new File([new Uint8Array(png)], name, { type: 'image/png' }));
    return form;
  };

const staffPost = async () => (await t.buildPost({ authorId: users.staff.id })).id;
const staffComment = async () => (await t.buildComment(await staffPost(), users.staff.id)).id;
/** A conversation of `staff` with a new colleague each time (one conversation per pair). */
const staffConversation = async () => t.buildConversation(users.staff.id, await freshUser());
/** A group `staff` started with two new colleagues (decision 143). */
const staffGroup = async () => t.buildGroup(users.staff.id, [await freshUser(), await freshUser()]);
const chatPath = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;
/** A chat `staff` is in: everyone else, admins included, gets 404 (decision 143). */
const staffChat = (status: number): Expected => ({
  signedOut: 401,
  pending: 401,
  deactivated: 401,
  staff: status,
  otherStaff: 404,
  admin: 404,
  systemAdmin: 404,
});
/** An alert addressed to Giles House, where only `staff` works: everyone else's alert list does not hold it. */
const gilesAlert = async () =>
  (await t.buildAlert({ authorId: users.author.id, audienceHouses: '["Giles House"]' })).id;
/** A post by an admin asking Giles House (`staff`) to confirm it has been read (decision 136). */
async function gilesConfirmation(): Promise<string> {
  const post = await t.buildPost({
    authorId: users.author.id,
    audienceHouses: '["Giles House"]',
    requiresConfirmation: true,
    confirmBy: '2030-01-31',
  });
  await syncAlertAudience(t.server.deps, post.id);
  return post.id;
}
/** A handover note of Giles House written by `staff` (decision 138); `otherStaff` works in Tudor Way. */
async function gilesHandover(): Promise<string> {
  const res = await (
    await clientAs('staff')
  ).post('/api/houses/Giles%20House/handovers', {
    shift: 'Day',
    content: 'All calm',
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
/** Staff of the house; staff of another house get 404 (they may not learn of the notes); admins read. */
const houseOnly = (staff: number, admin: number): Expected => ({
  signedOut: 401,
  pending: 401,
  deactivated: 401,
  staff,
  otherStaff: 404,
  admin,
  systemAdmin: admin,
});
const freshUser = async (overrides = {}) => (await t.buildUser(overrides)).id;
async function staffResident(): Promise<string> {
  const res = await (await clientAs('staff')).post('/api/residents', { name: `Resident ${randomUUID().slice(0, 6)}` });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function staffUpload(): Promise<string> {
  const res = await (await clientAs('staff')).postForm('/api/uploads', pngForm('file')());
  expect(res.status).toBe(201);
  return res.body.id as string;
}
function pushKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}
const pushEndpoint = () => `https://fcm.googleapis.com/fcm/send/${randomUUID()}`;

/** WebAuthn answers of the right shape that no ceremony is waiting for (decision 148). */
const madeUpAssertion = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
};
const madeUpRegistration = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'AAAA' },
};

const ROWS: Row[] = [
  // Public settings and the sign-in flow: reachable by everyone, whatever their session.
  { route: 'GET /api/config', expected: anyone(200), call: () => ({ path: '/api/config' }) },
  { route: 'GET /api/auth/user', expected: activeUsers(200), call: () => ({ path: '/api/auth/user' }) },
  {
    route: 'POST /api/auth/login',
    expected: anyone(200),
    emptyBody: 400,
    call: async () => {
      const email = `login-${randomUUID().slice(0, 8)}@test.example`;
      await t.buildUser({ email });
      return { path: '/api/auth/login', json: { email, password: 'Str0ng!Passw0rd' } };
    },
  },
  { route: 'POST /api/auth/logout', expected: anyone(204), call: () => ({ path: '/api/auth/logout', json: {} }) },
  // Single sign-on (decision 149), off on this server: both send the browser to the sign-in screen.
  {
    route: 'GET /api/auth/sso/start',
    expected: anyone(302),
    call: () => ({ path: '/api/auth/sso/start', navigation: true }),
  },
  {
    route: 'GET /api/auth/sso/callback',
    expected: anyone(302),
    call: () => ({ path: '/api/auth/sso/callback?code=c&state=s', navigation: true }),
  },
  {
    route: 'POST /api/auth/heartbeat',
    expected: activeUsers(204),
    call: () => ({ path: '/api/auth/heartbeat', json: {} }),
  },
  {
    route: 'POST /api/auth/profile-picture',
    expected: activeUsers(200),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/profile-picture', form: pngForm('profilePicture') }),
  },
  {
    route: 'POST /api/auth/register',
    expected: anyone(202),
    emptyBody: 400,
    call: () => ({
      path: '/api/auth/register',
      json: {
        email: `reg-${randomUUID().slice(0, 8)}@test.example`,
        password: 'New!Passw0rd',
        confirmPassword: 'New!Passw0rd',
        firstName: 'New',
        lastName: 'Starter',
        role: 'system_administrator',
      },
    }),
  },
  {
    route: 'POST /api/auth/forgot-password',
    expected: anyone(202),
    emptyBody: 400,
    // An address per call: one address may ask only five times in the window (decision 124).
    call: () => ({
      path: '/api/auth/forgot-password',
      json: { email: `nobody-${randomUUID().slice(0, 8)}@test.example` },
    }),
  },
  {
    route: 'GET /api/auth/reset-password/validate',
    expected: anyone(400),
    call: () => ({ path: '/api/auth/reset-password/validate?token=not-a-real-token' }),
  },
  {
    route: 'POST /api/auth/reset-password',
    expected: anyone(400),
    call: () => ({ path: '/api/auth/reset-password', json: { token: 'not-a-real-token', password: 'New!Passw0rd' } }),
  },
  // Two-factor sign-in (decision 148): the second step needs the first step's ticket, which no caller here has.
  {
    route: 'POST /api/auth/login/second-factor',
    expected: anyone(401),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/login/second-factor', json: { code: '123456' } }),
  },
  { route: 'GET /api/auth/two-factor', expected: activeUsers(200), call: () => ({ path: '/api/auth/two-factor' }) },
  {
    route: 'POST /api/auth/two-factor/totp/start',
    expected: activeUsers(200),
    call: () => ({ path: '/api/auth/two-factor/totp/start', json: {} }),
  },
  {
    route: 'POST /api/auth/two-factor/totp/confirm',
    expected: activeUsers(400),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/two-factor/totp/confirm', json: { code: '000000' } }),
  },
  // With the right password: nobody here has an app to remove or codes to renew, so each asks for one first.
  {
    route: 'POST /api/auth/two-factor/totp/remove',
    expected: activeUsers(400),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/two-factor/totp/remove', json: { password: TEST_PASSWORD } }),
  },
  {
    route: 'POST /api/auth/two-factor/recovery-codes',
    expected: activeUsers(400),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/two-factor/recovery-codes', json: { password: TEST_PASSWORD } }),
  },
  // Passkeys (decision 148). A made-up answer: no caller here has a ceremony under way, so each is refused as expired.
  {
    route: 'POST /api/auth/passkeys/options',
    expected: activeUsers(200),
    call: () => ({ path: '/api/auth/passkeys/options', json: {} }),
  },
  {
    // No emptyBody: every caller is refused before the body is read (401 signed out, 401 without a ceremony).
    route: 'POST /api/auth/passkeys',
    expected: activeUsers(401),
    call: () => ({ path: '/api/auth/passkeys', json: { name: 'Phone', response: madeUpRegistration } }),
  },
  {
    // No emptyBody: no caller gets past the made-up id; passkeys.test.ts checks the body.
    route: 'POST /api/auth/passkeys/:id/remove',
    expected: activeUsers(404),
    call: () => ({ path: '/api/auth/passkeys/no-such-passkey/remove', json: { password: TEST_PASSWORD } }),
  },
  {
    route: 'POST /api/auth/login/passkey/options',
    expected: anyone(401),
    call: () => ({ path: '/api/auth/login/passkey/options', json: {} }),
  },
  {
    route: 'POST /api/auth/login/passkey',
    expected: anyone(401),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/login/passkey', json: { response: madeUpAssertion } }),
  },
  {
    route: 'POST /api/auth/passkey-sign-in/options',
    expected: anyone(200),
    call: () => ({ path: '/api/auth/passkey-sign-in/options', json: {} }),
  },
  {
    route: 'POST /api/auth/passkey-sign-in',
    expected: anyone(401),
    emptyBody: 400,
    call: () => ({ path: '/api/auth/passkey-sign-in', json: { response: madeUpAssertion } }),
  },
  { route: 'POST /api/legacy-login', expected: anyone(410), call: () => ({ path: '/api/legacy-login', json: {} }) },
  {
    route: 'GET /api/setup/validate',
    expected: anyone(409),
    call: () => ({ path: '/api/setup/validate?token=not-a-real-token' }),
  },
  {
    route: 'POST /api/setup',
    expected: anyone(409),
    call: () => ({
      path: '/api/setup',
      json: {
        token: 'not-a-real-token',
        email: 'second@test.example',
        firstName: 'Second',
        lastName: 'Admin',
        password: 'New!Passw0rd',
        confirmPassword: 'New!Passw0rd',
      },
    }),
  },

  // Staff administration and the audit log: System Administrators only.
  { route: 'GET /api/admin/users', expected: systemAdmins(200), call: () => ({ path: '/api/admin/users' }) },
  {
    route: 'POST /api/admin/users',
    expected: systemAdmins(201),
    emptyBody: 400,
    call: () => ({
      path: '/api/admin/users',
      json: { email: `new-${randomUUID().slice(0, 8)}@test.example`, firstName: 'A', lastName: 'B', userType: 'staff' },
    }),
  },
  {
    route: 'PATCH /api/admin/users/:id/edit',
    expected: systemAdmins(200),
    emptyBody: 400,
    call: async () => ({
      path: `/api/admin/users/${await freshUser()}/edit`,
      json: { email: `edit-${randomUUID().slice(0, 8)}@test.example`, firstName: 'E', lastName: 'F', role: 'staff' },
    }),
  },
  {
    route: 'PATCH /api/admin/users/:id/status',
    expected: systemAdmins(200),
    emptyBody: 400,
    call: async () => ({ path: `/api/admin/users/${await freshUser()}/status`, json: { isActive: false } }),
  },
  {
    route: 'PUT /api/admin/users/:id/role',
    expected: systemAdmins(200),
    emptyBody: 400,
    call: async () => ({ path: `/api/admin/users/${await freshUser()}/role`, json: { role: 'admin' } }),
  },
  {
    route: 'PUT /api/admin/users/:id/houses',
    expected: systemAdmins(200),
    emptyBody: 400,
    call: async () => ({ path: `/api/admin/users/${await freshUser()}/houses`, json: { houses: ['Giles House'] } }),
  },
  {
    route: 'POST /api/admin/users/:id/approve',
    expected: systemAdmins(200),
    emptyBody: 400,
    call: async () => ({
      path: `/api/admin/users/${await freshUser({ isActive: false, pendingApproval: true })}/approve`,
      json: { role: 'staff' },
    }),
  },
  {
    route: 'DELETE /api/admin/users/:id',
    expected: systemAdmins(204),
    call: async () => ({ path: `/api/admin/users/${await freshUser()}` }),
  },
  {
    route: 'POST /api/admin/users/:id/two-factor/reset',
    expected: systemAdmins(200),
    call: async () => ({ path: `/api/admin/users/${await freshUser()}/two-factor/reset`, json: {} }),
  },
  { route: 'GET /api/admin/audit.csv', expected: systemAdmins(200), call: () => ({ path: '/api/admin/audit.csv' }) },
  { route: 'GET /api/admin/audit', expected: systemAdmins(200), call: () => ({ path: '/api/admin/audit' }) },

  // Suggestions: everyone suggests, System Administrators read.
  {
    route: 'POST /api/suggestions',
    expected: activeUsers(201),
    emptyBody: 400,
    call: () => ({ path: '/api/suggestions', json: { title: 'Idea', content: 'Details', category: 'other' } }),
  },
  { route: 'GET /api/suggestions', expected: systemAdmins(200), call: () => ({ path: '/api/suggestions' }) },

  // The feed. Owned records belong to `staff`; `otherStaff` is another staff member.
  { route: 'GET /api/posts', expected: activeUsers(200), call: () => ({ path: '/api/posts' }) },
  // Scheduled posts (decision 141): everyone sees their own; admins see everyone's.
  { route: 'GET /api/posts/scheduled', expected: activeUsers(200), call: () => ({ path: '/api/posts/scheduled' }) },
  {
    route: 'POST /api/posts',
    expected: activeUsers(201),
    emptyBody: 400,
    call: () => ({ path: '/api/posts', json: { content: 'Matrix post' } }),
  },
  {
    route: 'PATCH /api/posts/:id',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    emptyBody: 400,
    call: async () => ({ path: `/api/posts/${await staffPost()}`, json: { content: 'Edited by the matrix' } }),
  },
  {
    route: 'DELETE /api/posts/:id',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 204,
      otherStaff: 403,
      admin: 204,
      systemAdmin: 204,
    },
    call: async () => ({ path: `/api/posts/${await staffPost()}` }),
  },
  {
    route: 'GET /api/posts/:id/comments',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/posts/${await staffPost()}/comments` }),
  },
  {
    route: 'POST /api/posts/:id/comments',
    expected: activeUsers(201),
    emptyBody: 400,
    call: async () => ({ path: `/api/posts/${await staffPost()}/comments`, json: { content: 'A comment' } }),
  },
  {
    // docs/behaviour.md, "Administration": the comment's author or a System Administrator; an admin may not.
    route: 'DELETE /api/comments/:id',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 204,
      otherStaff: 403,
      admin: 403,
      systemAdmin: 204,
    },
    call: async () => ({ path: `/api/comments/${await staffComment()}` }),
  },
  {
    route: 'POST /api/posts/:id/reactions',
    expected: activeUsers(200),
    emptyBody: 400,
    call: async () => ({ path: `/api/posts/${await staffPost()}/reactions`, json: { type: 'love' } }),
  },
  {
    route: 'GET /api/posts/:id/reactions',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/posts/${await staffPost()}/reactions` }),
  },
  {
    route: 'POST /api/uploads',
    expected: activeUsers(201),
    emptyBody: 400,
    call: () => ({ path: '/api/uploads', form: pngForm('file') }),
  },
  {
    // Decision 20: files are for every signed-in colleague (they are shown in the shared feed).
    route: 'GET /api/uploads/:id',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/uploads/${await staffUpload()}` }),
  },
  { route: 'GET /api/placeholder-image', expected: anyone(200), call: () => ({ path: '/api/placeholder-image' }) },

  // Emergency alerts: the alert belongs to its audience (`staff`, in Giles House); the report to admins.
  {
    route: 'POST /api/posts/:id/acknowledge',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 404,
      admin: 404,
      systemAdmin: 404,
    },
    call: async () => ({ path: `/api/posts/${await gilesAlert()}/acknowledge`, json: {} }),
  },
  {
    route: 'GET /api/alerts/unacknowledged',
    expected: activeUsers(200),
    call: () => ({ path: '/api/alerts/unacknowledged' }),
  },
  {
    route: 'GET /api/alerts/:id/report.csv',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: async () => ({ path: `/api/alerts/${await gilesAlert()}/report.csv` }),
  },
  {
    route: 'GET /api/alerts/:id/report',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: async () => ({ path: `/api/alerts/${await gilesAlert()}/report` }),
  },
  // Read-and-confirm posts (decision 136): the request belongs to its audience (`staff`); the report to admins.
  {
    route: 'POST /api/posts/:id/confirm',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 404,
      admin: 404,
      systemAdmin: 404,
    },
    call: async () => ({ path: `/api/posts/${await gilesConfirmation()}/confirm`, json: {} }),
  },
  {
    route: 'GET /api/confirmations/outstanding',
    expected: activeUsers(200),
    call: () => ({ path: '/api/confirmations/outstanding' }),
  },
  {
    route: 'GET /api/confirmations',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: () => ({ path: '/api/confirmations' }),
  },
  {
    route: 'GET /api/posts/:id/confirmations.csv',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: async () => ({ path: `/api/posts/${await gilesConfirmation()}/confirmations.csv` }),
  },
  {
    route: 'GET /api/posts/:id/confirmations',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: async () => ({ path: `/api/posts/${await gilesConfirmation()}/confirmations` }),
  },
  {
    route: 'GET /api/notifications/unviewed-count',
    expected: activeUsers(200),
    call: () => ({ path: '/api/notifications/unviewed-count' }),
  },
  {
    // Someone else's alert id is ignored, not marked (checked below).
    route: 'POST /api/notifications/mark-viewed',
    expected: activeUsers(200),
    emptyBody: 400,
    call: async () => ({ path: '/api/notifications/mark-viewed', json: { postIds: [await gilesAlert()] } }),
    unchanged: async (caller) => {
      if (caller === 'staff') return;
      const [postId] = lastMarked;
      expect((await findAcknowledgement(t.db, acknowledgementId(postId, users.staff.id)))?.viewedAt ?? null).toBeNull();
    },
  },

  // Chat: a conversation belongs to its two participants (`staff` and a peer); everyone else gets 404.
  { route: 'GET /api/conversations', expected: activeUsers(200), call: () => ({ path: '/api/conversations' }) },
  {
    route: 'POST /api/conversations',
    expected: activeUsers(201),
    emptyBody: 400,
    call: async () => ({ path: '/api/conversations', json: { participantId: await freshUser() } }),
  },
  {
    route: 'GET /api/conversations/:id/messages',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 404,
      admin: 404,
      systemAdmin: 404,
    },
    call: async () => ({ path: `/api/conversations/${encodeURIComponent(await staffConversation())}/messages` }),
  },
  {
    route: 'POST /api/conversations/:id/messages',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 201,
      otherStaff: 404,
      admin: 404,
      systemAdmin: 404,
    },
    emptyBody: 400,
    call: async () => ({
      path: `/api/conversations/${encodeURIComponent(await staffConversation())}/messages`,
      json: { content: 'Hello' },
    }),
  },
  {
    route: 'PATCH /api/conversations/:id/read',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 404,
      admin: 404,
      systemAdmin: 404,
    },
    call: async () => ({
      path: `/api/conversations/${encodeURIComponent(await staffConversation())}/read`,
      json: {},
    }),
  },
  {
    route: 'PATCH /api/conversations/:id',
    expected: staffChat(200),
    emptyBody: 400,
    call: async () => ({ path: chatPath(await staffGroup()), json: { name: 'Renamed', muted: true } }),
  },
  {
    // Groups (decision 143): its creator (`staff`) changes the members; outsiders, admins included, get 404.
    route: 'POST /api/conversations/:id/members',
    expected: staffChat(200),
    emptyBody: 400,
    call: async () => ({ path: `${chatPath(await staffGroup())}/members`, json: { userIds: [await freshUser()] } }),
  },
  {
    route: 'DELETE /api/conversations/:id/members/:userId',
    expected: staffChat(204),
    call: async () => {
      const member = await freshUser();
      return { path: `${chatPath(await t.buildGroup(users.staff.id, [member, await freshUser()]))}/members/${member}` };
    },
  },
  {
    // The chat of a house nobody here works in: only admins may join it; to everyone else it is not there.
    route: 'POST /api/conversations/:id/join',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 404,
      otherStaff: 404,
      admin: 200,
      systemAdmin: 200,
    },
    call: () => ({ path: `${chatPath(houseChatIdOf('Apps House'))}/join` }),
  },
  {
    route: 'POST /api/conversations/:id/leave',
    expected: staffChat(204),
    call: async () => ({ path: `${chatPath(await staffGroup())}/leave` }),
  },
  {
    route: 'POST /api/conversations/:id/read',
    expected: staffChat(200),
    emptyBody: 400,
    call: async () => {
      const member = await freshUser();
      const id = await t.buildGroup(users.staff.id, [member, await freshUser()]);
      return { path: `${chatPath(id)}/read`, json: { upTo: (await t.buildMessage(id, member)).id } };
    },
  },
  {
    route: 'GET /api/messages/unread-count',
    expected: activeUsers(200),
    call: () => ({ path: '/api/messages/unread-count' }),
  },
  { route: 'GET /api/users', expected: activeUsers(200), call: () => ({ path: '/api/users' }) },

  // Kept work: the public key is public; a sealing key unwraps only for the user it was sealed for.
  { route: 'GET /api/kept/key', expected: anyone(200), call: () => ({ path: '/api/kept/key' }) },
  {
    route: 'POST /api/kept/unseal',
    expected: activeUsers(200),
    emptyBody: 400,
    call: async (caller) => {
      const sealedAt = Date.now();
      const userId = caller === 'signedOut' ? users.staff.id : users[caller].id;
      const wrappedKey = publicEncrypt(
        {
          key: createPublicKey({
            key: Buffer.from((await keptPublicKey(t.server.deps)).publicKey, 'base64'),
            format: 'der',
            type: 'spki',
          }),
          padding: constants.RSA_PKCS1_OAEP_PADDING,
          oaepHash: 'sha256',
          oaepLabel: Buffer.from(keptLabel(userId, sealedAt)),
        },
        randomBytes(32),
      ).toString('base64');
      return { path: '/api/kept/unseal', json: { sealedAt, wrappedKey } };
    },
  },

  // Web push: each user manages their own subscriptions and may only test their own.
  {
    route: 'GET /api/push/vapid-public-key',
    expected: activeUsers(200),
    call: () => ({ path: '/api/push/vapid-public-key' }),
  },
  {
    route: 'GET /api/push/subscription-status',
    expected: activeUsers(200),
    call: () => ({ path: '/api/push/subscription-status' }),
  },
  {
    route: 'POST /api/push/subscribe',
    expected: activeUsers(201),
    emptyBody: 400,
    call: () => ({ path: '/api/push/subscribe', json: { endpoint: pushEndpoint(), keys: pushKeys() } }),
  },
  {
    // Another user's endpoint is answered like any unknown one and stays subscribed (checked below).
    route: 'POST /api/push/unsubscribe',
    expected: activeUsers(200),
    emptyBody: 400,
    call: () => ({ path: '/api/push/unsubscribe', json: { endpoint: staffEndpoint } }),
    unchanged: async (caller) => {
      if (caller !== 'staff') expect(await countSubscriptionsOf(t.db, users.staff.id)).toBeGreaterThan(0);
    },
  },
  {
    route: 'POST /api/test-notification/:userId',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 200,
      otherStaff: 403,
      admin: 403,
      systemAdmin: 403,
    },
    call: () => ({ path: `/api/test-notification/${users.staff.id}`, json: { title: 'x', body: 'y', urgent: false } }),
  },

  // Residents (decision 49): every active user reads, adds and edits; administrators archive.
  { route: 'GET /api/residents', expected: activeUsers(200), call: () => ({ path: '/api/residents' }) },
  {
    route: 'POST /api/residents',
    expected: activeUsers(201),
    emptyBody: 400,
    call: () => ({ path: '/api/residents', json: { name: 'Matrix Resident' } }),
  },
  {
    route: 'GET /api/residents/photos/:name',
    expected: activeUsers(200),
    call: () => ({ path: residentPhotoPath }),
  },
  {
    route: 'GET /api/residents/:id',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/residents/${await staffResident()}` }),
  },
  {
    route: 'PUT /api/residents/:id',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/residents/${await staffResident()}`, json: { likeToBeCall: 'Bea' } }),
  },
  {
    // Even the resident's creator may not archive: archiving hides a person from everyone.
    route: 'POST /api/residents/:id/archive',
    expected: {
      signedOut: 401,
      pending: 401,
      deactivated: 401,
      staff: 403,
      otherStaff: 403,
      admin: 200,
      systemAdmin: 200,
    },
    call: async () => ({ path: `/api/residents/${await staffResident()}/archive`, json: {} }),
  },
  {
    route: 'GET /api/residents/:id/history',
    expected: activeUsers(200),
    call: async () => ({ path: `/api/residents/${await staffResident()}/history` }),
  },

  // Handover notes (decision 138): a house's staff write and read them; admins read, hide and see the report.
  {
    route: 'GET /api/houses/:house/handovers',
    expected: houseOnly(200, 200),
    call: () => ({ path: '/api/houses/Giles%20House/handovers' }),
  },
  {
    route: 'POST /api/houses/:house/handovers',
    expected: houseOnly(201, 403),
    emptyBody: 400,
    call: () => ({ path: '/api/houses/Giles%20House/handovers', json: { shift: 'Night', content: 'Quiet night' } }),
  },
  {
    route: 'GET /api/handovers/report',
    expected: { ...houseOnly(403, 200), otherStaff: 403 },
    call: () => ({ path: '/api/handovers/report?from=2026-01-01&to=2026-01-31' }),
  },
  {
    route: 'GET /api/handovers/report.csv',
    expected: { ...houseOnly(403, 200), otherStaff: 403 },
    call: () => ({ path: '/api/handovers/report.csv?from=2026-01-01&to=2026-01-31' }),
  },
  {
    route: 'GET /api/handovers/:id',
    expected: houseOnly(200, 200),
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}` }),
  },
  {
    // Only its author corrects a note, in its first hour.
    route: 'PATCH /api/handovers/:id',
    expected: houseOnly(200, 403),
    emptyBody: 400,
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}`, json: { content: 'All calm, corrected' } }),
  },
  {
    route: 'POST /api/handovers/:id/addenda',
    expected: houseOnly(201, 201),
    emptyBody: 400,
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}/addenda`, json: { content: 'And later' } }),
  },
  {
    route: 'POST /api/handovers/:id/read',
    expected: houseOnly(200, 200),
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}/read`, json: {} }),
  },
  {
    route: 'GET /api/handovers/:id/reads',
    expected: houseOnly(200, 200),
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}/reads` }),
  },
  {
    route: 'POST /api/handovers/:id/hide',
    expected: houseOnly(403, 200),
    call: async () => ({ path: `/api/handovers/${await gilesHandover()}/hide`, json: {} }),
  },

  // Sync: the stream and every collection's pull for every active user; push only where the collection
  // takes writes (the documents pushed by someone else are refused row by row, below).
  {
    route: 'GET /api/sync/stream',
    expected: activeUsers(200),
    call: () => ({ path: '/api/sync/stream', stream: true }),
  },
  ...SERVED_COLLECTIONS.map((collection): Row => ({
    route: 'GET /api/sync/:collection/pull',
    collection,
    expected: activeUsers(200),
    call: () => ({ path: `/api/sync/${collection}/pull` }),
  })),
  ...SERVED_COLLECTIONS.map((collection): Row => ({
    route: 'POST /api/sync/:collection/push',
    collection,
    expected: activeUsers(
      [...PUSHABLE_COLLECTIONS, ...SERVER_FIRST_COLLECTIONS].some((name) => name === collection) ? 200 : 400,
    ),
    emptyBody: 400,
    call: () => ({ path: `/api/sync/${collection}/push`, json: [] }),
  })),
];

let staffEndpoint = '';
/** The alert ids the last mark-viewed cell sent. */
let lastMarked: string[] = [];

/** The routes the app mounts: handlers only, not middleware (`use`, `*`) and not the client's static files. */
function mountedRoutes(): string[] {
  const app = createApp(t.server.deps, { clientDir: '/nonexistent' });
  const routes = app.routes
    .filter((r) => r.path.startsWith('/api/') && !r.path.endsWith('*'))
    .map((r) => `${r.method} ${r.path}`);
  return [...new Set(routes)];
}

beforeAll(async () => {
  t = await startTestServer();
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#4C307D' } })
    .png()
    .toBuffer();
  const build = (role: 'staff' | 'admin' | 'system_admin', extra = {}) =>
    t.buildUser({ role, email: `${role}-${randomUUID().slice(0, 8)}@test.example`, ...extra });
  users.staff = await build('staff');
  users.otherStaff = await build('staff');
  users.admin = await build('admin');
  users.systemAdmin = await build('system_admin');
  users.peer = await build('staff');
  users.author = await build('staff');
  users.pending = await build('staff', { isActive: false, pendingApproval: true, requestedRole: 'staff' });
  users.deactivated = await build('staff', { isActive: false });
  await t.setHouses(users.staff.id, ['Giles House']);
  await t.setHouses(users.otherStaff.id, ['Tudor Way']);

  const form = new FormData();
  form.append('name', 'Photo Resident');
  form.append('photo', new File([new Uint8Array(png)], 'face.png', { type: 'image/png' }));
  const resident = await (await clientAs('staff')).postForm('/api/residents', form);
  expect(resident.status).toBe(201);
  residentPhotoPath = resident.body.photoUrl as string;

  staffEndpoint = pushEndpoint();
  const sub = await (
    await clientAs('staff')
  ).post('/api/push/subscribe', { endpoint: staffEndpoint, keys: pushKeys() });
  expect(sub.status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

describe('the permission matrix', () => {
  it('has a row for every route the server mounts, and no row for a route that does not exist', () => {
    const mounted = mountedRoutes();
    const covered = new Set(ROWS.map((r) => r.route));
    const missing = mounted.filter((route) => !covered.has(route));
    expect(missing, `routes without a row in server/test/permission-matrix.test.ts: ${missing.join(', ')}`).toEqual([]);
    const stale = [...covered].filter((route) => !mounted.includes(route));
    expect(stale, `rows for routes the server does not mount: ${stale.join(', ')}`).toEqual([]);
    for (const route of mounted.filter((r) => r.includes(':collection'))) {
      const collections = ROWS.filter((r) => r.route === route).map((r) => r.collection);
      expect(collections, `${route} must have a row for every sync collection`).toEqual([...SERVED_COLLECTIONS]);
    }
  });

  describe.each(ROWS.map((row) => [row.collection ? `${row.route} (${row.collection})` : row.route, row] as const))(
    '%s',
    (_name, row) => {
      it.each(CALLERS)('answers %s as the table says', async (caller) => {
        const call = await row.call(caller);
        if (call.json && typeof call.json === 'object' && 'postIds' in call.json) {
          lastMarked = (call.json as { postIds: string[] }).postIds;
        }
        const res = await send(caller, row.route.split(' ')[0], call);
        expect(res.status, `${row.route} as ${caller}: ${res.text.slice(0, 200)}`).toBe(row.expected[caller]);
        if (res.status >= 400) {
          expect(res.body.code, 'an error answer has a code').toEqual(expect.any(String));
          expect(res.body.message, 'an error answer has a message').toEqual(expect.any(String));
        }
        await row.unchanged?.(caller, res.status);
      });

      if (row.emptyBody !== undefined) {
        it(`answers ${row.emptyBody} to an empty body from a caller allowed through`, async () => {
          const caller = CALLERS.find((c) => ![401, 403, 404].includes(row.expected[c])) ?? 'signedOut';
          const call = await row.call(caller);
          const empty: Call = call.form
            ? { path: call.path, form: () => new FormData() }
            : { path: call.path, json: {} };
          const res = await send(caller, row.route.split(' ')[0], empty);
          expect(res.status, `${row.route} with an empty body: ${res.text.slice(0, 200)}`).toBe(row.emptyBody);
          expect(res.body.message).toEqual(expect.any(String));
        });
      }
    },
  );
});

// An administrator who is agency or bank staff sees handover notes of their own houses only (decision 151): at Tudor
// Way, they are answered about Giles House's notes as its other staff member is, and get the report of their houses.
describe('the handover rows for an agency administrator of another house', () => {
  const rows = ROWS.filter((row) => row.route.includes('handovers') && !row.collection);
  it.each(rows.map((row) => [row.route, row] as const))('answers %s as the table says', async (_route, row) => {
    const agencyAdmin = await t.buildUser({
      role: 'admin',
      email: `agency-admin-${randomUUID().slice(0, 8)}@test.example`,
      accountType: 'agency',
      accessEndsAt: Date.now() + 5 * 24 * 3_600_000,
    });
    await t.setHouses(agencyAdmin.id, ['Tudor Way']);
    const client = t.client();
    client.cookie = `sp_session=${await startSession(t.server.deps, agencyAdmin.id, { ip: '127.0.0.1', userAgent: null })}`;
    const call = await row.call('admin');
    const res = await client.request(row.route.split(' ')[0], call.path, call.json);
    const expected = row.route.includes('/report') ? 200 : row.expected.otherStaff;
    expect(res.status, `${row.route}: ${res.text.slice(0, 200)}`).toBe(expected);
    if (row.route.includes('/report')) expect(res.text).not.toContain('Giles House');
  });
});

describe('a pushed document that belongs to someone else', () => {
  /** Pushes one row as `otherStaff`; the row must come back refused (a conflict), the batch still 200. */
  async function pushAsOther(collection: string, row: unknown) {
    const res = await (await clientAs('otherStaff')).post(`/api/sync/${collection}/push`, [row]);
    expect(res.status).toBe(200);
    const conflicts = res.body.conflicts as Record<string, unknown>[];
    expect(conflicts).toHaveLength(1);
    return conflicts[0];
  }
  const pull = async (caller: Caller, collection: string) =>
    (await (await clientAs(caller)).get(`/api/sync/${collection}/pull?limit=1000`)).body.documents as Record<
      string,
      unknown
    >[];
  const find = async (caller: Caller, collection: string, id: string) =>
    (await pull(caller, collection)).find((d) => d.id === id);

  it('posts: an edit and a delete of a colleague’s post are refused and not applied', async () => {
    const id = await staffPost();
    const master = await find('staff', 'posts', id);
    const edited = await pushAsOther('posts', {
      newDocumentState: { ...master, content: 'Taken over' },
      assumedMasterState: master,
    });
    expect(edited).toMatchObject({ id, content: 'A post', _deleted: false });
    const deleted = await pushAsOther('posts', {
      newDocumentState: { ...master, _deleted: true },
      assumedMasterState: master,
    });
    expect(deleted).toMatchObject({ id, _deleted: false });
    expect(await find('staff', 'posts', id)).toEqual(master);
  });

  it('comments: deleting a colleague’s comment is refused and not applied', async () => {
    const id = await staffComment();
    const master = await find('staff', 'comments', id);
    const refused = await pushAsOther('comments', {
      newDocumentState: { ...master, _deleted: true },
      assumedMasterState: master,
    });
    expect(refused).toMatchObject({ id, _deleted: false });
    expect(await find('staff', 'comments', id)).toEqual(master);
  });

  it('reactions: a reaction in a colleague’s name is refused and not applied', async () => {
    const postId = await staffPost();
    await t.buildReaction(postId, users.staff.id, 'like');
    const id = reactionId(postId, users.staff.id);
    const master = await find('staff', 'reactions', id);
    await pushAsOther('reactions', {
      newDocumentState: { ...master, type: 'angry' },
      assumedMasterState: master,
    });
    await pushAsOther('reactions', { newDocumentState: { ...master, _deleted: true }, assumedMasterState: master });
    expect(await find('staff', 'reactions', id)).toEqual(master);
  });

  it('conversations: another pair’s conversation is refused, not revealed and not changed', async () => {
    const id = await t.buildConversation(users.staff.id, users.peer.id);
    await t.buildMessage(id, users.peer.id);
    const before = await find('staff', 'conversations', id);
    const refused = await pushAsOther('conversations', {
      newDocumentState: { id, otherUserId: users.peer.id, readUpTo: Date.now(), _deleted: false },
      assumedMasterState: null,
    });
    expect(refused).toMatchObject({ id, _deleted: true });
    expect(await find('staff', 'conversations', id)).toEqual(before);
    expect(await find('otherStaff', 'conversations', id)).toBeUndefined();
  });

  it('conversations: a read mark or mute of a group one is not in is refused, not revealed and not changed', async () => {
    const id = await staffGroup();
    const before = await find('staff', 'conversations', id);
    const refused = await pushAsOther('conversations', {
      newDocumentState: { ...before, readUpTo: Date.now(), muted: true },
      assumedMasterState: before,
    });
    expect(refused).toMatchObject({ id, _deleted: true });
    expect(await find('staff', 'conversations', id)).toEqual(before);
    expect(await find('otherStaff', 'conversations', id)).toBeUndefined();
  });

  it('messages: a message into another pair’s conversation is refused and not stored', async () => {
    const conversationId = await staffConversation();
    const doc = { id: randomUUID(), conversationId, senderId: null, content: 'Let me in', createdAt: 0 };
    const refused = await pushAsOther('messages', {
      newDocumentState: { ...doc, _deleted: false },
      assumedMasterState: null,
    });
    expect(refused).toMatchObject({ id: doc.id, _deleted: true });
    expect(await find('staff', 'messages', doc.id)).toBeUndefined();
    // Nor can a pair be made up that does not include the pusher.
    const madeUp = conversationIdOf(users.staff.id, users.admin.id);
    const forged = await pushAsOther('messages', {
      newDocumentState: { ...doc, id: randomUUID(), conversationId: madeUp, _deleted: false },
      assumedMasterState: null,
    });
    expect(forged).toMatchObject({ _deleted: true });
    expect(await find('staff', 'conversations', madeUp)).toBeUndefined();
  });

  it('acknowledgements: acknowledging a colleague’s alert is refused and not recorded', async () => {
    const postId = await gilesAlert();
    const id = acknowledgementId(postId, users.staff.id);
    const master = await find('staff', 'acknowledgements', id);
    expect(master).toMatchObject({ acknowledgedAt: null });
    const refused = await pushAsOther('acknowledgements', {
      newDocumentState: { ...master, acknowledgedAt: Date.now(), viewedAt: Date.now() },
      assumedMasterState: master,
    });
    expect(refused).toMatchObject({ id, _deleted: true });
    expect(await findAcknowledgement(t.db, id)).toMatchObject({ acknowledgedAt: null, viewedAt: null });
  });

  it('residentViews: re-pushing a view a colleague recorded is refused and not recorded twice', async () => {
    const residentId = await staffResident();
    const view = { id: randomUUID(), residentId, viewedAt: Date.now(), _deleted: false };
    const first = await (await clientAs('staff')).post('/api/sync/residentViews/push', [{ newDocumentState: view }]);
    expect(first.body).toEqual({ conflicts: [] });
    const refused = await pushAsOther('residentViews', { newDocumentState: view });
    expect(refused).toMatchObject({ id: view.id, _deleted: true });
    expect(await find('otherStaff', 'residentViews', view.id)).toBeUndefined();
  });

  it('residentViews: an opening of another house’s handover notes is refused and audits nothing', async () => {
    const id = await gilesHandover();
    const opening = {
      id: randomUUID(),
      residentId: '',
      house: 'Giles House',
      handoverIds: [id],
      viewedAt: Date.now(),
      _deleted: false,
    };
    const refused = await pushAsOther('residentViews', { newDocumentState: opening });
    expect(refused).toMatchObject({ id: opening.id, _deleted: true });
    const audited = await statement(
      t.db,
      "SELECT count(*) AS n FROM audit_log WHERE action = 'handover.viewed' AND target_id = ? AND actor_id = ?",
    ).get([id, users.otherStaff.id]);
    expect(audited).toEqual({ n: 0 });
  });

  it('handovers: marking read or adding to another house’s note is refused and not applied', async () => {
    const id = await gilesHandover();
    const master = await find('staff', 'handovers', id);
    expect(master).toMatchObject({ readAt: null, addenda: [] });
    const addendum = { id: randomUUID(), authorId: null, content: 'Mine', createdAt: 0, writtenAt: 0 };
    const refused = await pushAsOther('handovers', {
      newDocumentState: { ...master, readAt: Date.now(), addenda: [addendum] },
      assumedMasterState: master,
    });
    expect(refused).toMatchObject({ id, _deleted: true });
    expect(await find('staff', 'handovers', id)).toMatchObject({ reads: [], addenda: [] });
  });

  it('users and residents: read-only collections refuse any push', async () => {
    for (const collection of SYNC_COLLECTIONS.filter((c) => !(PUSHABLE_COLLECTIONS as readonly string[]).includes(c))) {
      const res = await (
        await clientAs('systemAdmin')
      ).post(`/api/sync/${collection}/push`, [{ newDocumentState: { id: users.staff.id, _deleted: true } }]);
      expect(res.status).toBe(400);
    }
    expect((await (await clientAs('staff')).get('/api/auth/user')).status).toBe(200);
  });
});

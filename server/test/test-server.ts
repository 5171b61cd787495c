import { testDatabase } from './postgres-suite';
import dns from 'node:dns';
import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../config';
import { classifyAddress } from '../lib/addresses';
import { hashPassword } from '../lib/crypto';
import type { HostResolver } from '../lib/push';
import { startServer } from '../server';
import { transaction } from '../db/client';
import { syncAlertAudience } from '../features/alerts/alerts.service';
import {
  findConversation,
  insertConversation,
  insertMessage,
  newConversationRow,
  type NewMessageRow,
} from '../features/chat/chat.queries';
import { insertComment, type NewCommentRow } from '../features/comments/comments.queries';
import { replaceUserHouses } from '../features/houses/houses.queries';
import { settlePushes } from '../features/push/push.service';
import { insertPost, type NewPostRow } from '../features/posts/posts.queries';
import { upsertReaction } from '../features/reactions/reactions.queries';
import { insertUser, type NewUserRow } from '../features/users/users.queries';
import { toCurrentUser } from '../features/users/users.service';
import type { SessionUser } from '../lib/context';
import { startSmtpServer } from './smtp';

export const TEST_PASSWORD = 'Str0ng!Passw0rd';
export const ADMIN = { email: 'admin@test.example', password: 'Adm1n!Passw0rd' };

let hashed: Promise<string> | undefined;

/**
 * Tests never push beyond this machine: only addresses and `localhost` are looked up, and a public address
 * fails the send; the server's own check still refuses private ones (decision 125).
 */
export const loopbackOnlyResolver: HostResolver = async (hostname) => {
  if (!isIP(hostname) && hostname !== 'localhost') throw new Error(`Tests push to loopback only, not ${hostname}`);
  const addresses = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  if (addresses.some(({ address }) => classifyAddress(address) === 'public')) {
    throw new Error(`Tests push to loopback only, not ${hostname}`);
  }
  return addresses;
};

/**
 * A real server on a fresh SQLite file (or PostgreSQL database, on that pass of the suite) and a real SMTP server, reached over real HTTP. The clock can be
 * moved forward to test expiry rules.
 */
export async function startTestServer(env: Record<string, string> = {}) {
  const smtp = await startSmtpServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-test-'));
  // On the PostgreSQL pass of the suite, a database of its own (decision 157); otherwise SQLite in the data folder.
  const postgres = env.DATABASE_URL ? null : await testDatabase();
  let offset = 0;
  const config = loadConfig({
    ...(postgres && { DATABASE_URL: postgres.url }),
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', // error: to see what a 500 hid
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ORG_NAME: 'Test Care Ltd',
    // The local push receiver listens on 127.0.0.1; production never sets this (decision 125).
    PUSH_ALLOW_LOOPBACK: 'true',
    // Tests sign admins in with a password; two-factor.test.ts turns the requirement on (decision 148).
    ADMIN_TWO_FACTOR: 'optional',
    ...env,
  });
  const server = await startServer(config, {
    now: () => Date.now() + offset,
    clientDir: path.join(dataDir, 'no-client'),
    resolveHost: loopbackOnlyResolver,
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    server,
    smtp,
    dataDir,
    db: server.deps.db,
    /** Moves the server's clock forward. */
    advance(ms: number) {
      offset += ms;
    },
    client: () => new TestClient(url),
    /** Inserts an active user with the test password (factory). */
    async buildUser(overrides: Partial<NewUserRow> = {}) {
      hashed ??= hashPassword(TEST_PASSWORD);
      const id = overrides.id ?? randomUUID();
      const row: NewUserRow = {
        id,
        email: `user-${id.slice(0, 8)}@test.example`,
        passwordHash: await hashed,
        firstName: 'Test',
        lastName: 'User',
        role: 'staff',
        isActive: true,
        pendingApproval: false,
        createdAt: Date.now() + offset,
        updatedAt: Date.now() + offset,
        ...overrides,
      };
      await insertUser(server.deps.db, row);
      return row;
    },
    /** Inserts a post (factory); the author defaults to a new staff member. */
    async buildPost(overrides: Partial<NewPostRow> = {}) {
      const authorId = overrides.authorId === undefined ? (await this.buildUser()).id : overrides.authorId;
      const at = Date.now() + offset;
      const row: NewPostRow = {
        id: randomUUID(),
        authorId,
        content: 'A post',
        category: 'company_announcement',
        isUrgent: false,
        houseTags: '[]',
        images: '[]',
        attachments: '[]',
        createdAt: at,
        writtenAt: overrides.createdAt ?? at,
        updatedAt: at,
        deleted: false,
        ...overrides,
      };
      await insertPost(server.deps.db, row);
      return row;
    },
    /** Inserts an urgent post and sends its alert to its audience, as creating it does (factory). */
    async buildAlert(overrides: Partial<NewPostRow> = {}) {
      const post = await this.buildPost({ category: 'company_announcement', ...overrides, isUrgent: true });
      await syncAlertAudience(server.deps, post.id);
      return post;
    },
    /** Sets the houses a user works in (factory). */
    async setHouses(userId: string, houses: string[]) {
      await replaceUserHouses(server.deps.db, userId, houses, Date.now() + offset);
    },
    /** Inserts the conversation of two users (factory); answers its id. */
    async buildConversation(userId: string, otherUserId: string) {
      const row = newConversationRow(userId, otherUserId, Date.now() + offset);
      await insertConversation(server.deps.db, row);
      return row.id;
    },
    /** Inserts a group started by `creatorId` with these other members (factory); answers its id. */
    async buildGroup(creatorId: string, memberIds: string[], name = 'A group') {
      const at = Date.now() + offset;
      const id = randomUUID();
      const row = { id, kind: 'group' as const, name, house: null, createdBy: creatorId, userAId: null, userBId: null };
      await insertConversation(server.deps.db, { ...row, lastMessageAt: null, createdAt: at, updatedAt: at }, [
        creatorId,
        ...memberIds,
      ]);
      return id;
    },
    /** Inserts a message into a conversation (factory); times must increase within a conversation. */
    async buildMessage(conversationId: string, senderId: string, overrides: Partial<NewMessageRow> = {}) {
      const at = overrides.createdAt ?? Date.now() + offset;
      const row: NewMessageRow = {
        id: randomUUID(),
        conversationId,
        senderId,
        content: 'A message',
        createdAt: at,
        writtenAt: at,
        ...overrides,
      };
      await transaction(server.deps.db, async (tx) => {
        const last = (await findConversation(tx, conversationId))?.lastMessageAt ?? 0;
        row.createdAt = Math.max(row.createdAt, last + 1);
        await insertMessage(tx, row);
      });
      return row;
    },
    /** Waits until every push the server has queued has reached its push service (or failed). */
    settlePushes: () => settlePushes(server.deps),
    /** Inserts a comment on a post (factory). */
    async buildComment(postId: string, authorId: string | null, overrides: Partial<NewCommentRow> = {}) {
      const at = Date.now() + offset;
      const row: NewCommentRow = {
        id: randomUUID(),
        postId,
        authorId,
        content: 'A comment',
        createdAt: at,
        writtenAt: overrides.createdAt ?? at,
        updatedAt: at,
        deleted: false,
        ...overrides,
      };
      await insertComment(server.deps.db, row);
      return row;
    },
    /** Inserts a user's reaction to a post (factory). */
    async buildReaction(postId: string, userId: string, type = 'like') {
      const at = Date.now() + offset;
      await upsertReaction(server.deps.db, {
        id: `${postId}:${userId}`,
        postId,
        userId,
        type,
        createdAt: at,
        updatedAt: at,
      });
    },
    /** A client signed in as a new user of that role. */
    async signedIn(overrides: Partial<NewUserRow> = {}) {
      const user = await this.buildUser(overrides);
      const client = new TestClient(url);
      const res = await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { user, client };
    },
    async close() {
      await server.close();
      await smtp.close();
      await postgres?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** A user made by the factory as a service function takes its signed-in actor. */
export function actorOf(user: NewUserRow): SessionUser {
  return toCurrentUser({ ...user, profileImageUrl: user.profileImageUrl ?? null });
}

export interface TestResponse<T = Record<string, unknown>> {
  status: number;
  // Tests read arbitrary JSON; the schema under test is what they assert against.
  body: T & Record<string, unknown>;
  headers: Headers;
  text: string;
}

/** One server-sent event of a live stream. */
interface SseEvent {
  event: string;
  data: string;
}
/** A tiny HTTP client with a cookie jar, like a browser tab without JavaScript. */
export class TestClient {
  cookie = '';
  /** The cookie of a sign-in waiting for its second factor (decision 148), sent beside the session's. */
  signInCookie = '';
  /** The cookie of a passkey ceremony under way (decision 148). */
  passkeyCookie = '';
  constructor(readonly base: string) {}

  async request(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    const cookies = [this.cookie, this.signInCookie, this.passkeyCookie].filter(Boolean).join('; ');
    if (cookies) (init.headers as Record<string, string>).cookie = cookies;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(this.base + urlPath, init);
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const [pair] = c.split(';');
      const [name, value] = pair.split('=');
      if (name === 'sp_session') this.cookie = value ? `sp_session=${value}` : '';
      if (/Max-Age=0/i.test(c) && name === 'sp_session') this.cookie = '';
      if (name === 'sp_sign_in') this.signInCookie = value && !/Max-Age=0/i.test(c) ? `sp_sign_in=${value}` : '';
      if (name === 'sp_passkey') this.passkeyCookie = value && !/Max-Age=0/i.test(c) ? `sp_passkey=${value}` : '';
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    return { status: res.status, body: parsed, headers: res.headers, text } as TestResponse;
  }

  /** Sends a multipart form (the browser's FormData), keeping the cookie. */
  postForm(urlPath: string, form: FormData) {
    return this.sendForm('POST', urlPath, form);
  }

  /** Sends a multipart form with any method (PUT /api/residents/{id}), keeping the cookie. */
  async sendForm(method: string, urlPath: string, form: FormData) {
    const res = await fetch(this.base + urlPath, {
      method,
      body: form,
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    return { status: res.status, body: parsed, headers: res.headers, text } as TestResponse;
  }

  /** Fetches raw bytes (downloads). */
  async download(urlPath: string) {
    const res = await fetch(this.base + urlPath, { headers: this.cookie ? { cookie: this.cookie } : {} });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /**
   * Opens the live sync stream the way a browser client does without EventSource: fetch and a stream reader.
   * Collects events; `next` waits for one by name; `ended` resolves when the server closes the stream.
   */
  async openStream(urlPath = '/api/sync/stream') {
    const controller = new AbortController();
    const res = await fetch(this.base + urlPath, {
      headers: this.cookie ? { cookie: this.cookie } : {},
      signal: controller.signal,
    });
    const events: SseEvent[] = [];
    const comments: string[] = [];
    const waiters = new Set<() => void>();
    let buffer = '';
    const ended = (async () => {
      if (!res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const lines = block.split('\n');
            if (lines.every((l) => l.startsWith(':'))) comments.push(...lines);
            else {
              const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
              const data = lines
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n');
              events.push({ event, data });
            }
            waiters.forEach((wake) => wake());
          }
        }
      } catch {
        // aborted by the test
      } finally {
        waiters.forEach((wake) => wake());
      }
    })();
    let closed = false;
    void ended.then(() => (closed = true));
    /** The first event after `after` that `matches`, waited for up to `timeoutMs`. */
    const firstAfter = async (after: number, timeoutMs: number, what: string, matches: (e: SseEvent) => boolean) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.slice(after).find(matches);
        if (found) return found;
        if (closed || Date.now() > deadline) throw new Error(`no ${what} event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
    };
    return {
      status: res.status,
      headers: res.headers,
      events,
      comments,
      ended,
      get closed() {
        return closed;
      },
      /** Waits for the next event of that name after `after` events were seen. */
      next: (name: string, after = 0, timeoutMs = 3000) => firstAfter(after, timeoutMs, name, (e) => e.event === name),
      /**
       * The data of the first change event of `collection` after `after` events were seen: the hub keeps each
       * collection's events in order, not one collection's against another's.
       */
      async change(collection: string, after = 0, timeoutMs = 3000) {
        const dataOf = (e: SseEvent) => JSON.parse(e.data) as { collection: string; documents?: unknown[] };
        const isIt = (e: SseEvent) => e.event === 'change' && dataOf(e).collection === collection;
        return dataOf(await firstAfter(after, timeoutMs, `${collection} change`, isIt));
      },
      close: () => controller.abort(),
    };
  }

  get = (p: string, headers?: Record<string, string>) => this.request('GET', p, undefined, headers);
  post = (p: string, body?: unknown, headers?: Record<string, string>) => this.request('POST', p, body ?? {}, headers);
  patch = (p: string, body?: unknown) => this.request('PATCH', p, body ?? {});
  put = (p: string, body?: unknown) => this.request('PUT', p, body ?? {});
  delete = (p: string) => this.request('DELETE', p);
}

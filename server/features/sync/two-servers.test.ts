import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PullResponse } from '../../../schema/sync';
import { closeDb, openPostgres } from '../../db/client';
import { hashPassword } from '../../lib/crypto';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../test/postgres';
import { freePort, startServerProcess, type ServerProcess } from '../../test/server-process';
import { TEST_PASSWORD, TestClient } from '../../test/test-server';
import { insertUser } from '../users/users.queries';

const bin = postgresOrSkip();

/**
 * Two app processes on one PostgreSQL (decisions 157 and 158): what one server commits reaches a device streaming from
 * the other without a pull by hand, and a device whose server dies pulls what it missed from the other, once.
 */
describe.skipIf(bin === null)('two app servers on one PostgreSQL database', () => {
  let postgres: TestPostgres;
  const servers: ServerProcess[] = [];
  const folders: string[] = [];
  const users = {
    reader: { id: randomUUID(), email: 'reader@test.example', role: 'staff' as const },
    writer: { id: randomUUID(), email: 'writer@test.example', role: 'admin' as const },
  };

  const start = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-two-'));
    folders.push(dir);
    const server = await startServerProcess(dir, await freePort(), { DATABASE_URL: postgres.url }, 60_000);
    servers.push(server);
    return server;
  };

  const signIn = async (server: ServerProcess, email: string) => {
    const client = new TestClient(server.url);
    const res = await client.post('/api/auth/login', { email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    return client;
  };

  beforeAll(async () => {
    postgres = await startTestPostgres(bin);
    const db = await openPostgres(postgres.url);
    const passwordHash = await hashPassword(TEST_PASSWORD);
    for (const user of Object.values(users)) {
      const now = Date.now();
      await insertUser(db, {
        ...user,
        passwordHash,
        firstName: user.role === 'admin' ? 'Wendy' : 'Rita',
        lastName: 'Two',
        isActive: true,
        pendingApproval: false,
        createdAt: now,
        updatedAt: now,
      });
    }
    await closeDb(db);
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.kill().catch(() => undefined);
    await postgres?.stop();
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('tells a device on A of a message and an urgent post written through B; after A dies, B gives it what it missed, once', async () => {
    const [a, b] = [await start(), await start()];
    const readerOnA = await signIn(a, users.reader.email);
    const writerOnB = await signIn(b, users.writer.email);

    const stream = await readerOnA.openStream();
    await stream.next('RESYNC');
    const conversation = await writerOnB.post('/api/conversations', { participantId: users.reader.id });
    expect(conversation.status).toBe(201);
    const conversationId = (conversation.body as { id: string }).id;

    const seen = stream.events.length;
    const message = await writerOnB.post(`/api/conversations/${conversationId}/messages`, { content: 'From B' });
    expect(message.status).toBe(201);
    const messageId = (message.body as { id: string }).id;
    const post = await writerOnB.post('/api/posts', { content: 'Urgent from B', isUrgent: true });
    expect(post.status).toBe(201);
    const postId = (post.body as { id: string }).id;

    // Heard on A's stream, with the documents, no pull asked for.
    const heard = async (collection: string, id: string) => {
      for (let after = seen; ;) {
        const event = await stream.next('change', after, 10_000);
        after = stream.events.indexOf(event) + 1;
        const data = JSON.parse(event.data) as { collection: string; documents?: { id: string }[] };
        if (data.collection === collection && data.documents?.some((doc) => doc.id === id)) return;
      }
    };
    await heard('messages', messageId);
    await heard('posts', postId);
    stream.close();

    // A dies; B takes a message the device has not heard of; the device's session works on B.
    await a.kill();
    const missed = await writerOnB.post(`/api/conversations/${conversationId}/messages`, {
      content: 'While A was down',
    });
    expect(missed.status).toBe(201);
    const readerOnB = new TestClient(b.url);
    readerOnB.cookie = readerOnA.cookie;
    const pulled: string[] = [];
    let query = '';
    for (;;) {
      const res = await readerOnB.get(`/api/sync/messages/pull?limit=1${query}`);
      expect(res.status).toBe(200);
      const page = res.body as unknown as PullResponse<{ id: string; content: string }>;
      if (page.documents.length === 0) break;
      pulled.push(...page.documents.map((doc) => doc.content));
      query = `&seq=${page.checkpoint!.seq}&id=${page.checkpoint!.id}`;
    }
    expect(pulled).toEqual(['From B', 'While A was down']);
    const stillOnB = await readerOnB.openStream();
    await stillOnB.next('RESYNC');
    stillOnB.close();
  }, 90_000); // two server processes compiled and started on a two-core machine
});

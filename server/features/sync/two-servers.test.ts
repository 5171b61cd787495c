import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PullResponse } from '../../../schema/sync';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../test/postgres';
import type { ServerProcess } from '../../test/server-process';
import { insertAccounts, ServersOnPostgres, twoAccounts } from '../../test/servers-on-postgres';
import { TestClient } from '../../test/test-server';

const bin = postgresOrSkip();

/**
 * Two app processes on one PostgreSQL (decisions 157 and 158): what one server commits reaches a device streaming from
 * the other without a pull by hand, and a device whose server dies pulls what it missed from the other, once.
 */
describe.skipIf(bin === null)('two app servers on one PostgreSQL database', () => {
  let postgres: TestPostgres;
  const users = twoAccounts();
  const servers = new ServersOnPostgres(() => postgres.url);
  const start = () => servers.start();
  const signIn = (server: ServerProcess, email: string) => servers.signIn(server, email);

  beforeAll(async () => {
    postgres = await startTestPostgres(bin);
    await insertAccounts(postgres.url, Object.values(users));
  }, 60_000);

  afterAll(async () => {
    await servers.stop();
    await postgres?.stop();
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

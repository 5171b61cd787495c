import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostView } from '../../../schema/posts';
import type { PullResponse, SyncCheckpoint } from '../../../schema/sync';
import type { ChangeEvent } from '../../../schema/sync-protocol';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../test/postgres';
import type { ServerProcess } from '../../test/server-process';
import { insertAccounts, ServersOnPostgres, twoAccounts } from '../../test/servers-on-postgres';
import { TestClient } from '../../test/test-server';

const bin = postgresOrSkip();

type Collection = 'messages' | 'posts';
type Doc = { id: string; content: string; _deleted: boolean };
type Stream = Awaited<ReturnType<TestClient['openStream']>>;

const PULL_LIMIT = 2;

/**
 * One device's store of two collections, kept as docs/sync.md says a device keeps it: each collection's checkpoint,
 * how far it holds every change (a short page's `through`, then each stored event's checkpoint), and the events it
 * stores only when they follow on from that. `arrivals` counts each id however it came, for the ledger.
 */
class Device {
  readonly held: Record<Collection, Map<string, Doc>> = { messages: new Map(), posts: new Map() };
  readonly checkpoint: Record<Collection, SyncCheckpoint | null> = { messages: null, posts: null };
  readonly coverage: Record<Collection, number> = { messages: 0, posts: 0 };
  readonly arrivals = new Map<string, number>();
  /** How many of the current stream's events the device has read. */
  private read = 0;

  constructor(public client: TestClient) {}

  /** Pulls one collection from its own checkpoint until a short page; answers the ids that came. */
  async pull(collection: Collection): Promise<string[]> {
    const came: string[] = [];
    for (;;) {
      const at = this.checkpoint[collection];
      const query = at ? `&seq=${at.seq}&id=${encodeURIComponent(at.id)}` : '';
      const res = await this.client.get(`/api/sync/${collection}/pull?limit=${PULL_LIMIT}${query}`);
      expect(res.status).toBe(200);
      const page = res.body as unknown as PullResponse<Doc>; // the pull's wire type (schema/sync.ts)
      this.store(collection, page.documents, page.checkpoint);
      came.push(...page.documents.map((doc) => doc.id));
      if (page.documents.length < PULL_LIMIT) {
        this.coverage[collection] = page.through!; // every pull in change order answers it
        return came;
      }
    }
  }

  /** Reads the stream's events until the device holds every one of `ids`, storing each change it delivers. */
  async hear(stream: Stream, ids: string[]): Promise<void> {
    while (!ids.every((id) => this.holds(id))) {
      const event = await stream.next('change', this.read, 10_000);
      this.read = stream.events.indexOf(event) + 1;
      // Cast, not parsed: the wire type of schema/sync-protocol.ts, which the checks below hold the server to.
      const { collection, since, checkpoint, documents } = JSON.parse(event.data) as ChangeEvent<Doc>;
      if (collection !== 'messages' && collection !== 'posts') continue;
      // Delivered with its documents and following on from what is held: stored with no pull (decision 131).
      if (!documents || !checkpoint || since === undefined || since > this.coverage[collection]) {
        throw new Error(`the device would have to pull for this ${collection} event: ${event.data}`);
      }
      if (checkpoint.seq <= this.coverage[collection]) continue;
      this.store(collection, documents, checkpoint);
      this.coverage[collection] = checkpoint.seq;
    }
  }

  /** Opens the live stream on the device's server, as the app does on start and after an error, and waits for RESYNC. */
  async connect(): Promise<Stream> {
    const stream = await this.client.openStream();
    this.read = 0;
    await stream.next('RESYNC');
    return stream;
  }

  holds(id: string): boolean {
    return this.held.messages.has(id) || this.held.posts.has(id);
  }

  private store(collection: Collection, docs: Doc[], checkpoint: SyncCheckpoint): void {
    for (const doc of docs) {
      this.held[collection].set(doc.id, doc);
      this.arrivals.set(doc.id, (this.arrivals.get(doc.id) ?? 0) + 1);
    }
    if (docs.length > 0) this.checkpoint[collection] = checkpoint;
  }
}

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

  it('shows on A the next feed page after a post is written, edited or deleted through B, though A keeps its page', async () => {
    const [a, b] = [await start(), await start()];
    const readerOnA = await signIn(a, users.reader.email);
    const writerOnB = await signIn(b, users.writer.email);
    const feedOnA = async () => {
      const res = await readerOnA.get('/api/posts');
      expect(res.status).toBe(200);
      return res.body as unknown as PostView[]; // GET /api/posts answers the schema's views
    };
    const contentOnA = async (id: string) => (await feedOnA()).find((post) => post.id === id)?.content;

    // A now keeps this page, under the sequence it read from the shared database (posts.service.ts, sharedPage).
    const before = (await feedOnA()).map((post) => post.id);

    const created = await writerOnB.post('/api/posts', { content: 'Written through B' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect(await contentOnA(id)).toBe('Written through B');

    expect((await writerOnB.patch(`/api/posts/${id}`, { content: 'Edited through B' })).status).toBe(200);
    expect(await contentOnA(id)).toBe('Edited through B');

    expect((await writerOnB.delete(`/api/posts/${id}`)).status).toBe(204);
    expect((await feedOnA()).map((post) => post.id)).toEqual(before);
  }, 90_000); // two server processes compiled and started on a two-core machine

  it('tells a device on A of a message and an urgent post written through B; after A dies, B gives it what it missed, once', async () => {
    const [a, b] = [await start(), await start()];
    const device = new Device(await signIn(a, users.reader.email));
    const writerOnB = await signIn(b, users.writer.email);

    // The device's first sync: its stream on A, then a pull of each collection to a checkpoint of its own.
    const stream = await device.connect();
    await device.pull('messages');
    await device.pull('posts');
    const conversation = await writerOnB.post('/api/conversations', { participantId: users.reader.id });
    expect(conversation.status).toBe(201);
    const conversationId = (conversation.body as { id: string }).id;
    const writeMessage = async (content: string) => {
      const res = await writerOnB.post(`/api/conversations/${conversationId}/messages`, { content });
      expect(res.status).toBe(201);
      return (res.body as { id: string }).id;
    };
    const writeUrgentPost = async (content: string) => {
      const res = await writerOnB.post('/api/posts', { content, isUrgent: true });
      expect(res.status).toBe(201);
      return (res.body as { id: string }).id;
    };

    // Heard on A's stream, with the documents, no pull asked for.
    const heard = { messages: [await writeMessage('From B')], posts: [await writeUrgentPost('Urgent from B')] };
    await device.hear(stream, [...heard.messages, ...heard.posts]);

    // A dies under the device's stream; B takes a message and an urgent post the device cannot hear of.
    await a.kill();
    await stream.ended;
    expect(stream.closed).toBe(true);
    const missed = {
      messages: [await writeMessage('While A was down')],
      posts: [await writeUrgentPost('Urgent, A down')],
    };

    // The device reconnects to B with its session and pulls from its own checkpoints.
    const readerOnB = new TestClient(b.url);
    readerOnB.cookie = device.client.cookie;
    device.client = readerOnB;
    const streamOnB = await device.connect();
    const caughtUp = { messages: await device.pull('messages'), posts: await device.pull('posts') };
    streamOnB.close();

    // The ledger: the catch-up brought exactly what was missed, and every document written arrived once.
    expect(caughtUp).toEqual(missed);
    const written = [...heard.messages, ...heard.posts, ...missed.messages, ...missed.posts];
    expect(Object.fromEntries(written.map((id) => [id, device.arrivals.get(id)]))).toEqual(
      Object.fromEntries(written.map((id) => [id, 1])),
    );
    expect([...device.held.messages.values()].map((doc) => doc.content)).toEqual(['From B', 'While A was down']);
    expect(missed.posts.map((id) => device.held.posts.get(id)?.content)).toEqual(['Urgent, A down']);
  }, 90_000);
});

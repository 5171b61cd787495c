import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statement } from '../db/client';
import { startTestServer, type TestClient, type TestResponse, type TestServer } from './test-server';

/**
 * A device whose answer was lost sends the same item again, and a flaky network can deliver both sends at the same
 * moment (docs/sync.md, "Push"). Each of these creates checks its client id and inserts in one transaction, so the
 * two arrive as one stored item and both answer it.
 */
const HOUSE = 'Apps House';
const TIMES = 4;

let t: TestServer;
let writer: TestClient;
let writerId: string;
let colleagueId: string;

beforeAll(async () => {
  t = await startTestServer();
  ({
    client: writer,
    user: { id: writerId },
  } = await t.signedIn({ firstName: 'Wendy' }));
  ({
    user: { id: colleagueId },
  } = await t.signedIn({ firstName: 'Colin' }));
  await t.setHouses(writerId, [HOUSE]);
});
afterAll(async () => {
  await t.close();
});

/** Sends the same request TIMES at once and answers the responses. */
const atOnce = (send: () => Promise<TestResponse>) => Promise.all(Array.from({ length: TIMES }, send));

async function countOf(table: string, id: string): Promise<number> {
  const row = await statement<unknown[], { n: number }>(t.db, `SELECT count(*) AS n FROM ${table} WHERE id = ?`).get([
    id,
  ]);
  return row!.n;
}

function expectOneAnswer(answers: TestResponse[], id: string) {
  expect(answers.map((a) => a.status)).toEqual(Array(TIMES).fill(201));
  for (const answer of answers) expect(answer.body.id).toBe(id);
}

describe('the same item sent several times at once is stored once', () => {
  it('a post', async () => {
    const id = randomUUID();
    const answers = await atOnce(() => writer.post('/api/posts', { id, content: 'Written offline', isUrgent: true }));
    expectOneAnswer(answers, id);
    expect(await countOf('posts', id)).toBe(1);
    // The urgent post's alert rows were written once, by the one send that stored it.
    const alerts = await statement<unknown[], { n: number }>(
      t.db,
      'SELECT count(*) AS n FROM acknowledgements WHERE post_id = ? AND user_id = ?',
    ).get([id, colleagueId]);
    expect(alerts!.n).toBe(1);
  });

  it('a comment', async () => {
    const post = await t.buildPost({ authorId: colleagueId });
    const id = randomUUID();
    const answers = await atOnce(() => writer.post(`/api/posts/${post.id}/comments`, { id, content: 'Seen' }));
    expectOneAnswer(answers, id);
    expect(await countOf('comments', id)).toBe(1);
  });

  it('a chat message', async () => {
    const conversation = await writer.post('/api/conversations', { participantId: colleagueId });
    const id = randomUUID();
    const answers = await atOnce(() =>
      writer.post(`/api/conversations/${conversation.body.id as string}/messages`, { id, content: 'On my way' }),
    );
    expectOneAnswer(answers, id);
    expect(await countOf('messages', id)).toBe(1);
  });

  it('a handover note and its addendum', async () => {
    const id = randomUUID();
    const list = `/api/houses/${encodeURIComponent(HOUSE)}/handovers`;
    const notes = await atOnce(() => writer.post(list, { id, shift: 'Night', content: 'Quiet night' }));
    expectOneAnswer(notes, id);
    expect(await countOf('handovers', id)).toBe(1);

    const addendumId = randomUUID();
    const addenda = await atOnce(() =>
      writer.post(`/api/handovers/${id}/addenda`, { id: addendumId, content: 'Fluids at 6' }),
    );
    expectOneAnswer(addenda, id);
    expect(await countOf('handover_addenda', addendumId)).toBe(1);
  });
});

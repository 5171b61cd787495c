import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncCollection } from '../../../schema/sync';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../test/postgres';
import { cut, FANOUT_CHANNEL, fanOutBetweenServers, type ServersFanout } from './sync.fanout';
import type { SyncHub } from './sync.hub';

const bin = postgresOrSkip();
const silent = { info: () => undefined, error: () => undefined };

/** A hub that records what it was told, as a server's own hub would act on it. */
function recordingHub() {
  const heard: string[] = [];
  const hub: SyncHub = {
    connect: async () => () => undefined,
    notify: (collection, userIds) => heard.push(`${collection}:${userIds ? [...userIds].join(',') : '*'}`),
    disconnectUser: (userId) => heard.push(`user:${userId}`),
    disconnectSession: (sessionHash) => heard.push(`session:${sessionHash}`),
    checkSessionsWith: () => undefined,
    size: () => 0,
    close: () => undefined,
  };
  return { hub, heard };
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(bin === null)('telling the other servers of a change through PostgreSQL', () => {
  let postgres: TestPostgres;
  const fanouts: ServersFanout[] = [];
  beforeAll(async () => {
    postgres = await startTestPostgres(bin);
  });
  afterAll(async () => {
    for (const fanout of fanouts) await fanout.stop();
    await postgres?.stop();
  });

  const server = async () => {
    const local = recordingHub();
    const fanout = await fanOutBetweenServers(local.hub, postgres.url, ['posts', 'messages'], silent);
    fanouts.push(fanout);
    return { ...local, hub: fanout.hub };
  };

  it('passes a change to the other server’s hub once, and not back to its own', async () => {
    const a = await server();
    const b = await server();
    a.hub.notify('messages', ['u1', 'u2']);
    a.hub.notify('posts');
    a.hub.disconnectUser('u3');
    a.hub.disconnectSession('hash');
    await until(() => b.heard.length === 4);
    expect(b.heard).toEqual(['messages:u1,u2', 'posts:*', 'user:u3', 'session:hash']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.heard).toEqual(['messages:u1,u2', 'posts:*', 'user:u3', 'session:hash']); // its own, told directly
    expect(b.heard).toHaveLength(4);
  });

  it('listens again after losing its connection and has every stream catch up', async () => {
    const a = await server();
    const b = await server();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    // End the listeners' sessions as a failover or a restarted PostgreSQL would.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
    );
    await admin.end();
    await until(() => b.heard.includes('posts:*') && b.heard.includes('messages:*'));
    b.heard.length = 0;
    a.hub.notify('messages', ['u9']);
    await until(() => b.heard.includes('messages:u9'));
  });
});

describe('cutting what a server tells the others below PostgreSQL’s payload limit', () => {
  it('keeps a small batch in one message', () => {
    expect(cut({ c: [['posts', null]], u: ['a'] }, 'me')).toEqual([{ from: 'me', c: [['posts', null]], u: ['a'] }]);
  });

  it('splits many changes into several messages, each under the limit, losing none', () => {
    const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}-${i}-0000-0000-0000-000000000000`);
    const changes: [SyncCollection, string[]][] = Array.from({ length: 40 }, (_, i) => ['messages', ids(20, `c${i}`)]);
    const messages = cut({ c: changes }, 'me');
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(JSON.stringify(message).length).toBeLessThan(8000);
    expect(messages.flatMap((message) => message.c ?? [])).toEqual(changes);
  });

  it('tells everyone of a change naming more users than one message holds', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => `user-${i}-0000-0000-000000000000`);
    expect(cut({ c: [['posts', many]] }, 'me')).toEqual([{ from: 'me', c: [['posts', null]] }]);
  });

  it('uses the channel the servers listen on', () => {
    expect(FANOUT_CHANNEL).toMatch(/^[a-z_]+$/);
  });
});

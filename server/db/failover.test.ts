import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAVAILABLE_MESSAGE } from '../../schema/errors';
import type { PullResponse } from '../../schema/sync';
import { clusterTempDir, freePort, postgresOrSkip, runAsClusterUser } from '../test/postgres';
import type { ServerProcess } from '../test/server-process';
import { insertAccounts, ServersOnPostgres, twoAccounts } from '../test/servers-on-postgres';

const bin = postgresOrSkip();
const skipped = whyNoAutoFailover(bin);
if (skipped) console.warn(skipped);

/** Why pg_auto_failover cannot run here (no pg_autoctl, or no extension for this PostgreSQL), or null. */
function whyNoAutoFailover(pgBin: string | null): string | null {
  if (pgBin === null) return 'PostgreSQL not found: the failover test is skipped';
  const onPath = (process.env.PATH ?? '').split(':').some((dir) => fs.existsSync(path.join(dir, 'pg_autoctl')));
  if (!onPath) {
    return 'pg_autoctl not found (apt-get install postgresql-15-auto-failover pg-auto-failover-cli): the failover test is skipped';
  }
  if (!fs.existsSync(path.join(pgBin, '..', 'lib', 'pgautofailover.so'))) {
    return `pg_auto_failover's extension is not installed for ${pgBin}: the failover test is skipped`;
  }
  return null;
}

interface NodeState {
  nodename: string;
  current_group_state: string;
  assigned_group_state: string;
}

/**
 * pg_auto_failover on this machine: a monitor and two nodes in one temporary folder, each a `pg_autoctl` service run
 * as the clusters' OS user with its configuration and state kept in that folder.
 */
class Formation {
  readonly dir = clusterTempDir('staff-portal-paf-');
  private readonly services: ChildProcess[] = [];
  private readonly env: string[];

  constructor(pgBin: string) {
    this.env = [
      `HOME=${this.dir}`,
      `XDG_CONFIG_HOME=${this.dir}/config`,
      `XDG_DATA_HOME=${this.dir}/share`,
      `XDG_RUNTIME_DIR=${this.dir}/run`,
      `PATH=${pgBin}:/usr/bin:/bin`,
      'LC_ALL=C',
    ];
  }

  pgdata(name: string): string {
    return path.join(this.dir, name);
  }

  /** A pg_autoctl command that ends by itself; its output on failure. */
  async run(args: string[]): Promise<string> {
    try {
      return (await runAsClusterUser('env', ['-i', ...this.env, 'pg_autoctl', ...args])).stdout;
    } catch (error) {
      throw new Error(`pg_autoctl ${args.join(' ')} failed: ${String(error)}\n${this.logs()}`);
    }
  }

  /** A pg_autoctl service, in its own process group so that it and its PostgreSQL can be ended together. */
  serve(name: string, args: string[]): void {
    const command = ['env', '-i', ...this.env, 'pg_autoctl', ...args];
    const [file, argv] =
      process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...command]] : [command[0]!, command.slice(1)];
    const log = fs.openSync(path.join(this.dir, `${name}.log`), 'a');
    this.services.push(spawn(file, argv, { detached: true, stdio: ['ignore', log, log] }));
    fs.closeSync(log);
  }

  async states(): Promise<NodeState[]> {
    return JSON.parse(await this.run(['show', 'state', '--pgdata', this.pgdata('monitor'), '--json'])) as NodeState[];
  }

  /** Waits until each named node reports, and is assigned, the state given. */
  async settle(wanted: Record<string, string>, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: NodeState[] = [];
    while (Date.now() < deadline) {
      last = await this.states().catch(() => []);
      const reached = Object.entries(wanted).every(([name, state]) =>
        last.some((n) => n.nodename === name && n.current_group_state === state && n.assigned_group_state === state),
      );
      if (reached) return;
      await sleep(250);
    }
    throw new Error(`the nodes did not reach ${JSON.stringify(wanted)}: ${JSON.stringify(last)}\n${this.logs()}`);
  }

  logs(): string {
    return ['monitor', 'node1', 'node2']
      .map((name) => path.join(this.dir, `${name}.log`))
      .filter((file) => fs.existsSync(file))
      .map((file) => `--- ${file}\n${fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n')}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    for (const name of ['node2', 'node1', 'monitor']) {
      if (fs.existsSync(this.pgdata(name))) {
        await this.run(['stop', '--pgdata', this.pgdata(name), '--immediate']).catch(() => undefined);
      }
    }
    await Promise.all(this.services.map((service) => ended(service, 15_000)));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Resolves when the service has exited, ending its whole process group if it has not within the time given. */
async function ended(service: ChildProcess, timeoutMs: number): Promise<void> {
  if (service.exitCode !== null || service.signalCode !== null) return;
  const exit = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  const timer = setTimeout(() => {
    try {
      process.kill(-service.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  await exit;
  clearTimeout(timer);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A failover the app follows by itself (docs/deploy.md, "PostgreSQL with a standby and automatic failover"): two app
 * processes given both nodes in one libpq-style URL with target_session_attrs=read-write keep taking writes and
 * serving what was written before, and keep telling each other of changes, after pg_auto_failover promotes the standby.
 */
describe.skipIf(skipped !== null)('a PostgreSQL failover under pg_auto_failover', () => {
  let formation: Formation;
  const ports = { monitor: 0, node1: 0, node2: 0 };
  const users = twoAccounts();
  const servers = new ServersOnPostgres(
    () =>
      `postgres://postgres@127.0.0.1:${ports.node1},127.0.0.1:${ports.node2}/portal?target_session_attrs=read-write&sslmode=no-verify`,
  );

  beforeAll(async () => {
    const started = Date.now();
    formation = new Formation(bin!);
    for (const name of ['monitor', 'node1', 'node2'] as const) ports[name] = await freePort();
    const pgctl = path.join(bin!, 'pg_ctl');
    // As docs/deploy.md has it, but trusting local connections: a test has no passwords to keep.
    const auth = ['--auth', 'trust', '--ssl-self-signed', '--pgctl', pgctl, '--hostname', '127.0.0.1'];

    await formation.run([
      'create',
      'monitor',
      '--pgdata',
      formation.pgdata('monitor'),
      '--pgport',
      String(ports.monitor),
      ...auth,
    ]);
    // The monitor listens on every interface unless told; a test listens on the loopback only.
    await formation.run([
      'config',
      'set',
      '--pgdata',
      formation.pgdata('monitor'),
      'postgresql.listen_addresses',
      '127.0.0.1',
    ]);
    formation.serve('monitor', ['run', '--pgdata', formation.pgdata('monitor')]);
    const monitor = `postgres://autoctl_node@127.0.0.1:${ports.monitor}/pg_auto_failover?sslmode=require`;
    for (const name of ['node1', 'node2'] as const) {
      formation.serve(name, [
        'create',
        'postgres',
        '--pgdata',
        formation.pgdata(name),
        '--pgport',
        String(ports[name]),
        '--name',
        name,
        '--listen',
        '127.0.0.1',
        '--monitor',
        monitor,
        '--run',
        ...auth,
      ]);
      // One at a time: the first registered becomes the primary, the second its standby.
      await formation.settle(name === 'node1' ? { node1: 'single' } : { node1: 'primary', node2: 'secondary' });
    }

    // Byte order, which the app requires (server/db/client.ts).
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${ports.node1}/postgres` });
    await client.connect();
    await client.query(`CREATE DATABASE portal LOCALE 'C' TEMPLATE template0`);
    await client.end();
    await insertAccounts(`postgres://postgres@127.0.0.1:${ports.node1}/portal`, Object.values(users));
    console.log(`failover test: monitor and two nodes ready in ${Date.now() - started} ms`);
  }, 180_000);

  afterAll(async () => {
    await servers.stop();
    await formation?.stop();
  }, 60_000);

  const start = () => servers.start();
  const signIn = (server: ServerProcess, email: string) => servers.signIn(server, email);

  it('keeps the same app processes taking writes, serving earlier ones and telling each other, after the standby is promoted', async () => {
    const [a, b] = [await start(), await start()];
    const readerOnA = await signIn(a, users.reader.email);
    const writerOnB = await signIn(b, users.writer.email);
    const conversation = await writerOnB.post('/api/conversations', { participantId: users.reader.id });
    expect(conversation.status).toBe(201);
    const conversationId = (conversation.body as { id: string }).id;
    const send = (content: string) => writerOnB.post(`/api/conversations/${conversationId}/messages`, { content });
    expect((await send('Before the failover')).status).toBe(201);

    const stream = await readerOnA.openStream();
    await stream.next('RESYNC');
    const seen = stream.events.length;

    // Writes through B every 200 ms from the moment the failover begins until one is taken after it has ended.
    const failoverAt = Date.now();
    let failoverTook: number | null = null;
    const failover = formation
      .run(['perform', 'failover', '--pgdata', formation.pgdata('monitor'), '--wait', '90'])
      .then(() => (failoverTook = Date.now() - failoverAt));
    const taken: string[] = [];
    const refused: { at: number; status: number; text: string }[] = [];
    let written: { id: string; content: string } | null = null;
    for (let attempt = 1; !written && Date.now() - failoverAt < 60_000; attempt += 1) {
      const over = failoverTook !== null;
      const content = `During the failover, attempt ${attempt}`;
      const res = await send(content);
      if (res.status === 201) {
        taken.push(content);
        if (over) written = { id: (res.body as { id: string }).id, content };
      } else refused.push({ at: Date.now() - failoverAt, status: res.status, text: res.text });
      await sleep(200);
    }
    await failover;
    const window = refused.length > 0 ? `${refused[0]!.at}–${refused.at(-1)!.at} ms` : 'none';
    console.log(
      `failover test: pg_autoctl perform failover took ${failoverTook} ms; writes through B taken ${taken.length}, ` +
        `refused ${refused.length} (statuses ${[...new Set(refused.map((r) => r.status))].join(', ') || 'none'}, ` +
        `from the failover's start: ${window})`,
    );
    expect(
      written,
      `no write was taken after the failover; refused: ${JSON.stringify(refused.slice(-3))}`,
    ).not.toBeNull();
    // A refused write says the service is briefly unavailable, and nothing of PostgreSQL (house style: Errors).
    for (const { status, text } of refused) {
      expect(status).toBe(503);
      expect(JSON.parse(text)).toEqual({ code: 'unavailable', message: UNAVAILABLE_MESSAGE });
    }

    // The node that took it is the former standby, now the primary.
    const nodes = await formation.states();
    expect(
      nodes.find((n) => n.assigned_group_state === 'primary' || n.assigned_group_state === 'wait_primary')?.nodename,
    ).toBe('node2');

    // A's listener found the new primary: the device streaming from A hears of B's write, with no pull by hand.
    for (let after = seen; ;) {
      const event = await stream.next('change', after, 30_000).catch((error: unknown) => {
        throw new Error(`${String(error)}; A's stream closed: ${stream.closed}; A printed:\n${a.output()}`);
      });
      after = stream.events.indexOf(event) + 1;
      const data = JSON.parse(event.data) as { collection: string; documents?: { id: string }[] };
      if (data.collection === 'messages' && data.documents?.some((doc) => doc.id === written!.id)) break;
    }
    stream.close();

    // A serves what was written before the failover and after it, from the new primary.
    const pulled: string[] = [];
    let query = '';
    for (;;) {
      const res = await readerOnA.get(`/api/sync/messages/pull?limit=50${query}`);
      expect(res.status).toBe(200);
      const page = res.body as unknown as PullResponse<{ id: string; content: string }>;
      if (page.documents.length === 0) break;
      pulled.push(...page.documents.map((doc) => doc.content));
      query = `&seq=${page.checkpoint!.seq}&id=${page.checkpoint!.id}`;
    }
    // Every write B answered 201 to is there: none acknowledged on the old primary was lost.
    expect(pulled).toEqual(expect.arrayContaining(['Before the failover', ...taken]));

    // The same processes, never restarted.
    for (const server of [a, b]) expect(() => process.kill(server.pid, 0)).not.toThrow();
  }, 240_000);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterTempDir,
  postgresOrSkip,
  runAsClusterUser,
  startTestPostgres,
  type TestPostgres,
} from '../test/postgres';
import { freePort, startServerProcess, type ServerProcess } from '../test/server-process';
import { TestClient } from '../test/test-server';

const PGBACKREST_SKIPPED = 'pgbackrest not found on the PATH (apt-get install pgbackrest): its backup test is skipped';
const STANZA = 'portal';
const ADMIN = { email: 'admin@test.example', password: 'Str0ng!Passw0rd' };

/** pgBackRest's executable, or null after saying the test is skipped: never silent. */
function findPgBackRest(): string | null {
  const found = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, 'pgbackrest'))
    .find((file) => fs.existsSync(file));
  if (!found) console.warn(PGBACKREST_SKIPPED);
  return found ?? null;
}

const bin = postgresOrSkip();
const pgbackrestBin = bin === null ? null : findPgBackRest();

/**
 * The PostgreSQL deployment's backups as docs/deploy.md gives them: WAL archived to a pgBackRest repository, a full
 * and an incremental backup taken under a running app, then the cluster lost and restored on a fresh data folder to
 * the end of the archived WAL, where the app finds what it wrote before and after the last backup.
 */
describe.skipIf(pgbackrestBin === null)('pgBackRest backups of the PostgreSQL deployment', () => {
  let work: string;
  let conf: string;
  const clusters: TestPostgres[] = [];
  const servers: ServerProcess[] = [];
  const folders: string[] = [];

  /** The repository's configuration, as docs/deploy.md has it, with the stanza pointing at `cluster`. */
  const writeConfig = (cluster: { dataDir: string; port?: number; socketDir?: string }) =>
    fs.writeFileSync(
      conf,
      [
        '[global]',
        `repo1-path=${path.join(work, 'repo')}`,
        'repo1-retention-full=2',
        'compress-type=zst',
        'start-fast=y',
        `log-path=${path.join(work, 'log')}`,
        `lock-path=${path.join(work, 'lock')}`,
        'log-level-console=warn',
        '',
        `[${STANZA}]`,
        `pg1-path=${cluster.dataDir}`,
        ...(cluster.port ? [`pg1-port=${cluster.port}`, `pg1-socket-path=${cluster.socketDir}`] : []),
        '',
      ].join('\n'),
    );
  const pgbackrest = (...args: string[]) =>
    runAsClusterUser(pgbackrestBin!, [`--config=${conf}`, `--stanza=${STANZA}`, ...args]);

  const appDatabase = (cluster: TestPostgres) => cluster.url.replace(/\/postgres$/, '/portal');
  const startApp = async (cluster: TestPostgres, env: Record<string, string> = {}) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-pgbackrest-app-'));
    folders.push(dir);
    const server = await startServerProcess(
      dir,
      await freePort(),
      { DATABASE_URL: appDatabase(cluster), ...env },
      60_000,
    );
    servers.push(server);
    const client = new TestClient(server.url);
    expect((await client.post('/api/auth/login', ADMIN)).status).toBe(200);
    return { server, client };
  };
  const writePost = async (client: TestClient, content: string) =>
    expect((await client.post('/api/posts', { content })).status).toBe(201);

  beforeAll(async () => {
    work = clusterTempDir('sp-pgbackrest-');
    conf = path.join(work, 'pgbackrest.conf');
    const archive = `${pgbackrestBin} --config=${conf} --stanza=${STANZA} archive-push %p`;
    const cluster = await startTestPostgres(bin, undefined, {
      settings: { archive_mode: 'on', archive_command: archive },
    });
    clusters.push(cluster);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE portal TEMPLATE template0 LOCALE 'C'`);
    await admin.end();
    writeConfig(cluster);
    await pgbackrest('stanza-create');
    await pgbackrest('check');
    await pgbackrest('--type=full', 'backup');
  }, 120_000); // a cluster, a stanza and a full backup on a busy two-core machine

  afterAll(async () => {
    for (const server of servers) await server.kill().catch(() => undefined);
    for (const cluster of clusters) await cluster.stop();
    for (const dir of [work, ...folders]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restores, on a fresh data folder, what the app wrote before the last backup and after it', async () => {
    const [original] = clusters;
    const first = await startApp(original, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
    await writePost(first.client, 'Written before the backup');
    await pgbackrest('backup');
    await writePost(first.client, 'Written after the backup');
    // Forces the WAL segment holding the last write into the archive, as archive_timeout would.
    await pgbackrest('check');
    const info = JSON.parse((await pgbackrest('--output=json', 'info')).stdout) as { backup: { type: string }[] }[];
    expect(info[0].backup.map((backup) => backup.type)).toEqual(['full', 'incr']);

    // The machine is lost: the app and the cluster stop at once, the data folder is gone.
    await first.server.kill();
    await original.stop();
    const restored = await startTestPostgres(bin, undefined, {
      create: async (data) => {
        writeConfig({ dataDir: data });
        await pgbackrest('restore');
      },
    });
    clusters.push(restored);
    await waitForPromotion(restored.url);
    writeConfig(restored);
    // The restored cluster archives on its new timeline into the same repository.
    await pgbackrest('check');

    const second = await startApp(restored);
    const posts = await second.client.get('/api/posts');
    expect(posts.status).toBe(200);
    const contents = (posts.body as unknown as { content: string }[]).map((post) => post.content);
    expect(contents.sort()).toEqual(['Written after the backup', 'Written before the backup']);
  }, 180_000); // two app processes compiled and started, a backup and a restore, on a two-core machine
});

/** Waits until the restored cluster has replayed the archive and takes writes. */
async function waitForPromotion(url: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
    await client.end();
    if (!rows[0].recovering) return;
    if (Date.now() - started > timeoutMs) throw new Error(`PostgreSQL was still recovering after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

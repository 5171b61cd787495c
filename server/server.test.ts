import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';
import { startServer } from './server';
import { testDatabase } from './test/postgres-suite';
import { startTestServer, TestClient } from './test/test-server';
import { sqliteOf, statement } from './db/client';

const ROOT = path.resolve(import.meta.dirname, '..');
const tempDirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-srv-'));
  tempDirs.push(dir);
  return dir;
};
const databases: (() => Promise<void>)[] = [];
afterAll(async () => {
  tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
  for (const drop of databases.splice(0)) await drop();
});

/** On the PostgreSQL pass, DATABASE_URL of a fresh database of its own (decision 157); on SQLite, nothing. */
async function databaseEnv(): Promise<{ DATABASE_URL?: string }> {
  const postgres = await testDatabase();
  if (!postgres) return {};
  databases.push(postgres.drop);
  return { DATABASE_URL: postgres.url };
}

/** Runs `npm start`'s entry point as a real process and collects what it prints. */
function runMain(env: Record<string, string>, untilMatch: RegExp, timeoutMs = 20_000) {
  return new Promise<{ code: number | null; output: string; kill: () => void }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let output = '';
    const done = (code: number | null) => resolve({ code, output, kill: () => child.kill('SIGTERM') });
    const timer = setTimeout(() => done(null), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (untilMatch.test(output)) {
        clearTimeout(timer);
        done(null);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

describe('configuration', () => {
  it('names every bad setting', () => {
    expect(() =>
      loadConfig({ PORT: 'abc', REGISTRATION: 'open', SMTP_URL: 'mail.example', PUBLIC_URL: 'nope' }),
    ).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'abc', REGISTRATION: 'open', SMTP_URL: 'mail.example', PUBLIC_URL: 'nope' });
    } catch (error) {
      const message = (error as Error).message;
      for (const key of ['PORT', 'REGISTRATION', 'SMTP_URL', 'PUBLIC_URL']) expect(message).toContain(key);
    }
  });

  it('refuses a weak or lone ADMIN_PASSWORD: never a default password', () => {
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.example', ADMIN_PASSWORD: 'password' })).toThrow(/ADMIN_PASSWORD/);
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.example' })).toThrow(/ADMIN_PASSWORD/);
  });

  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, registration: 'approval', secure: false });
    expect(config.dataDir).toBe(path.resolve('data'));
  });

  it('stops the real process with a message naming the bad value', async () => {
    const run = await runMain({ PORT: 'not-a-port', DATA_DIR: tempDir() }, /$^/);
    expect(run.code).toBe(1);
    expect(run.output).toContain('PORT');
    expect(run.output).not.toMatch(/at .*\(/);
  });
});

describe('the data folder', () => {
  it('refuses a second server on the same folder with a clear message', async () => {
    const dataDir = tempDir();
    // Each server keeps a data folder of its own on PostgreSQL too (docs/deploy.md).
    const database = await databaseEnv();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...database });
    const first = await startServer(config, { clientDir: dataDir });
    try {
      await expect(startServer(config, { clientDir: dataDir })).rejects.toThrow(/already using the data folder/);
      const run = await runMain({ PORT: '0', DATA_DIR: dataDir, ...database }, /$^/);
      expect(run.code).toBe(1);
      expect(run.output).toMatch(/Another Staff Portal server \(process \d+\) is already using the data folder/);
    } finally {
      await first.close();
    }
    const again = await startServer(config, { clientDir: dataDir });
    await again.close();
  });

  // Pragmas and the file are SQLite's own: on PostgreSQL there is neither.
  it.skipIf(process.env.TEST_DATABASE === 'postgres')('uses SQLite in WAL mode with foreign keys on', async () => {
    const t = await startTestServer();
    try {
      expect(sqliteOf(t.db).pragma('journal_mode', { simple: true })).toBe('wal');
      expect(sqliteOf(t.db).pragma('foreign_keys', { simple: true })).toBe(1);
      expect(fs.existsSync(path.join(t.dataDir, 'staff-portal.db'))).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('keeps the audit log from being changed, in the database itself', async () => {
    const t = await startTestServer();
    try {
      await expect(statement(t.db, "update audit_log set action = 'x'").run()).rejects.toThrow(/append-only/);
      await expect(statement(t.db, 'delete from audit_log').run()).rejects.toThrow(/append-only/);
    } finally {
      await t.close();
    }
  });
});

/** A server on a fresh folder and database with no System Administrator, and what it printed as it started. */
async function startWithoutAdmin() {
  const dataDir = tempDir();
  const logs: string[] = [];
  const original = console.log;
  const database = await databaseEnv();
  console.log = (...args: unknown[]) => logs.push(args.join(' '));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...database });
  const server = await startServer(config, { clientDir: dataDir }).finally(() => (console.log = original));
  return { server, logs };
}

describe('first start without a System Administrator', () => {
  it('prints a one-time link that creates the first System Administrator and signs them in', async () => {
    const { server, logs } = await startWithoutAdmin();
    try {
      const link = /http:\/\/\S+\/setup\?token=\S+/.exec(logs.join('\n'))?.[0];
      expect(link).toBeDefined();
      const token = new URL(link!).searchParams.get('token')!;
      const client = new TestClient(`http://127.0.0.1:${server.port}`);
      expect((await client.get('/api/config')).body.needsSetup).toBe(true);
      expect((await client.get('/api/setup/validate?token=wrong')).status).toBe(400);
      expect((await client.get(`/api/setup/validate?token=${token}`)).body).toEqual({ valid: true });
      const form = {
        token,
        email: 'Boss@Care.Example',
        firstName: 'Bo',
        lastName: 'Ss',
        password: 'F1rst!Admin',
        confirmPassword: 'F1rst!Admin',
      };
      const weak = await client.post('/api/setup', { ...form, password: 'weak', confirmPassword: 'weak' });
      expect(weak.status).toBe(400);
      const res = await client.post('/api/setup', form);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ email: 'boss@care.example', role: 'system_admin', isMasterAdmin: true });
      expect((await client.get('/api/auth/user')).status).toBe(200);
      expect((await client.get('/api/config')).body.needsSetup).toBe(false);
      const reuse = await new TestClient(client.base).post('/api/setup', { ...form, email: 'other@care.example' });
      expect(reuse.status).toBe(409);
    } finally {
      await server.close();
    }
  });

  it('makes one System Administrator when the link is sent twice at once', async () => {
    const { server, logs } = await startWithoutAdmin();
    try {
      const token = new URL(/http:\/\/\S+\/setup\?token=\S+/.exec(logs.join('\n'))![0]).searchParams.get('token')!;
      const base = `http://127.0.0.1:${server.port}`;
      const form = { token, firstName: 'Bo', lastName: 'Ss', password: 'F1rst!Admin', confirmPassword: 'F1rst!Admin' };
      const sent = await Promise.all(
        ['one@care.example', 'two@care.example'].map((email) =>
          new TestClient(base).post('/api/setup', { ...form, email }),
        ),
      );
      expect(sent.map((res) => res.status).sort()).toEqual([201, 409]);
      const admins = await statement(server.deps.db, "SELECT email FROM users WHERE role = 'system_admin'").pluck();
      expect(admins).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('first start of several servers at once', () => {
  // Several servers share one database only on PostgreSQL; a SQLite file has one server (its data folder's lock).
  it.skipIf(process.env.TEST_DATABASE !== 'postgres')(
    'makes one System Administrator from ADMIN_EMAIL however many servers start together',
    async () => {
      const database = await databaseEnv();
      const settings = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...database };
      const admin = { ADMIN_EMAIL: 'root@care.example', ADMIN_PASSWORD: 'R00t!Passw0rd' };
      const servers = await Promise.all(
        [tempDir(), tempDir(), tempDir()].map((dir) =>
          startServer(loadConfig({ ...settings, ...admin, DATA_DIR: dir }), { clientDir: dir }),
        ),
      );
      try {
        const { db } = servers[0].deps;
        const admins = await statement(db, "SELECT email FROM users WHERE role = 'system_admin'").pluck();
        expect(admins).toEqual(['root@care.example']);
        const audited = await statement(
          db,
          "SELECT count(*) AS n FROM audit_log WHERE action = 'setup.admin_from_env'",
        ).get();
        expect(Number(audited?.n)).toBe(1);
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    },
  );
});

describe('mail without SMTP', () => {
  it('writes each message as an .eml file under DATA_DIR/outbox and logs its link', async () => {
    const dataDir = tempDir();
    const database = await databaseEnv();
    const logs: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => logs.push(args.join(' '));
    try {
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ADMIN_EMAIL: 'root@care.example',
        ADMIN_PASSWORD: 'R00t!Passw0rd',
        ...database,
      });
      const server = await startServer(config, { clientDir: dataDir });
      try {
        const client = new TestClient(`http://127.0.0.1:${server.port}`);
        expect((await client.post('/api/auth/forgot-password', { email: 'root@care.example' })).status).toBe(202);
        // The outbox sends after the answer (decision 124).
        await server.outbox.settle();
        const files = fs.readdirSync(path.join(dataDir, 'outbox'));
        expect(files).toHaveLength(1);
        const eml = fs.readFileSync(path.join(dataDir, 'outbox', files[0]), 'utf8');
        expect(eml).toMatch(/^To: root@care\.example$/m);
        expect(eml).toMatch(/Subject: Reset your Staff Portal password/);
        expect(logs.join('\n')).toMatch(/outbox.*\/reset-password\?token=/);
      } finally {
        await server.close();
      }
    } finally {
      console.log = original;
    }
  });
  it('in production logs only that a mail waits in the outbox, with its id, never its link', async () => {
    const dataDir = tempDir();
    const database = await databaseEnv();
    const logs: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => logs.push(args.join(' '));
    try {
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ADMIN_EMAIL: 'root@care.example',
        ADMIN_PASSWORD: 'R00t!Passw0rd',
        ...database,
        NODE_ENV: 'production',
      });
      const server = await startServer(config, { clientDir: dataDir });
      try {
        const client = new TestClient(`http://127.0.0.1:${server.port}`);
        expect((await client.post('/api/auth/forgot-password', { email: 'root@care.example' })).status).toBe(202);
        await server.outbox.settle();
        const [file] = fs.readdirSync(path.join(dataDir, 'outbox'));
        const eml = fs.readFileSync(path.join(dataDir, 'outbox', file), 'utf8').replace(/=\r?\n/g, '');
        expect(eml).toMatch(/\/reset-password\?token=3D/);
        // better-sqlite3 types a row as unknown; this query selects one integer column.
        const { id } = (await statement(server.deps.db, 'select id from mail_outbox').get()) as { id: number };
        expect(logs.join('\n')).toContain(`Mail ${id} is waiting in the outbox`);
        expect(logs.join('\n')).not.toMatch(/token=/);
      } finally {
        await server.close();
      }
    } finally {
      console.log = original;
    }
  });
});

describe('settings that change behaviour', () => {
  it('REGISTRATION=closed refuses registration with a clear message', async () => {
    const t = await startTestServer({ REGISTRATION: 'closed' });
    try {
      const res = await t.client().post('/api/auth/register', {
        email: 'a@test.example',
        password: 'Str0ng!Pass',
        confirmPassword: 'Str0ng!Pass',
        firstName: 'A',
        lastName: 'B',
        role: 'staff',
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Registration is closed. Please contact your administrator for an account.');
      expect((await t.client().get('/api/config')).body.registration).toBe('closed');
    } finally {
      await t.close();
    }
  });

  it('an https PUBLIC_URL makes the cookie Secure and sends HSTS', async () => {
    const t = await startTestServer({ PUBLIC_URL: 'https://portal.care.example' });
    try {
      const res = await t.client().post('/api/auth/login', { email: 'admin@test.example', password: 'Adm1n!Passw0rd' });
      expect(res.headers.getSetCookie()[0]).toMatch(/Secure/);
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      const cross = await t.client().post('/api/auth/logout', {}, { origin: 'http://127.0.0.1:1' });
      expect(cross.status).toBe(403);
      const own = await t.client().post('/api/auth/logout', {}, { origin: 'https://portal.care.example' });
      expect(own.status).toBe(204);
    } finally {
      await t.close();
    }
  });
});

describe('the built client', () => {
  it('is sent brotli-compressed to a browser that accepts it, and plain to one that does not', async () => {
    const clientDir = tempDir();
    const dataDir = tempDir();
    const script = 'console.log("the app");'.repeat(200);
    fs.mkdirSync(path.join(clientDir, 'assets'));
    fs.writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>Staff Portal</title>');
    fs.writeFileSync(path.join(clientDir, 'assets', 'app.js'), script);
    fs.writeFileSync(path.join(clientDir, 'assets', 'app.js.br'), zlib.brotliCompressSync(script));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...(await databaseEnv()),
    });
    const server = await startServer(config, { clientDir });
    try {
      const url = `http://127.0.0.1:${server.port}/assets/app.js`;
      const compressed = await fetch(url, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(compressed.headers.get('content-encoding')).toBe('br');
      expect(compressed.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(await compressed.text()).toBe(script);
      const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await plain.text()).toBe(script);
    } finally {
      await server.close();
    }
  });
});

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from './test/postgres';
import { freePort, type ServerProcess } from './test/server-process';
import { insertAccounts, ServersOnPostgres, twoAccounts } from './test/servers-on-postgres';
import { TEST_PASSWORD } from './test/test-server';

const DOC = path.join(import.meta.dirname, '../docs/deploy.md');
const HOST = 'portal.example.org';
/** The client connects from here, not from nginx's own 127.0.0.1: the app can learn it only from X-Forwarded-For. */
const CLIENT_ADDRESS = '127.0.0.2';
/** What a client writes in X-Forwarded-For to pass for someone else; the proxy must not let it through. */
const SPOOFED_ADDRESS = '203.0.113.9';

const onPath = (name: string, extra: string[] = []) =>
  [...(process.env.PATH ?? '').split(':').filter(Boolean), ...extra]
    .map((dir) => path.join(dir, name))
    .find((file) => fs.existsSync(file)) ?? null;
const nginxBin = onPath('nginx', ['/usr/sbin', '/usr/local/sbin', '/usr/local/nginx/sbin']);
const skipped =
  nginxBin === null
    ? 'nginx not found (apt-get install nginx): the nginx recipe test is skipped'
    : onPath('openssl') === null
      ? 'openssl not found (apt-get install openssl): the nginx recipe test is skipped'
      : null;
if (skipped) console.warn(skipped);
const pgBin = skipped ? null : postgresOrSkip();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a failure saying `what` did not happen within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The nginx code blocks of docs/deploy.md: section 2's site and the two-servers upstream with its locations. */
function recipeFromDoc(): { site: string; twoServers: string } {
  const doc = fs.readFileSync(DOC, 'utf8');
  const blockAfter = (marker: string) => {
    const at = doc.indexOf(marker);
    const block = at < 0 ? null : /```nginx\n([\s\S]*?)```/.exec(doc.slice(at));
    if (!block) throw new Error(`docs/deploy.md has no nginx block after "${marker}"`);
    return block[1]!;
  };
  return { site: blockAfter('### nginx'), twoServers: blockAfter('**Two app servers behind nginx.**') };
}

/** A pattern matching `text` as written. */
const literal = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));

/** `text` with the one match of `pattern` replaced; the doc changing shape fails the test rather than passing it. */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const found = text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  if (found !== 1) throw new Error(`docs/deploy.md's nginx blocks: ${found} matches of ${pattern}, expected one`);
  return text.replace(pattern, () => replacement);
}

interface Setup {
  dir: string;
  port: number;
  redirectPort: number;
  upstreams: [string, string];
}

/**
 * The doc's recipe as one nginx.conf, changed only where a test must: loopback ports, the test's certificate, the two
 * test servers in the upstream. The two-servers block's locations replace section 2's of the same path.
 */
function configFromDoc({ dir, port, redirectPort, upstreams }: Setup): string {
  const { site, twoServers } = recipeFromDoc();
  let server = replaceOnce(site, /listen 443 ssl\b/, `listen 127.0.0.1:${port} ssl`);
  server = replaceOnce(server, /listen 80;/, `listen 127.0.0.1:${redirectPort};`);
  server = replaceOnce(server, /ssl_certificate\s+\S+;/, `ssl_certificate ${dir}/cert.pem;`);
  server = replaceOnce(server, /ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${dir}/key.pem;`);
  let upstream = /upstream\s+\w+\s*\{[^{}]*\}/.exec(twoServers)?.[0];
  if (!upstream) throw new Error("docs/deploy.md's two-servers block has no upstream");
  const addresses = [...upstream.matchAll(/^\s*server\s+(\S+)/gm)].map((match) => match[1]!);
  if (addresses.length !== 2) throw new Error(`the doc's upstream names ${addresses.length} servers, not two`);
  addresses.forEach((address, i) => (upstream = replaceOnce(upstream!, literal(address), upstreams[i]!)));
  for (const [location, where] of twoServers.matchAll(/location\s+(\S+)\s*\{[^{}]*\}/g)) {
    server = replaceOnce(server, new RegExp(`location\\s+${literal(where!).source}\\s*\\{[^{}]*\\}`), location);
  }
  return `worker_processes 1;
events { worker_connections 256; }
http {
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    # The test's own addition: which app server answered (a retried request names both).
    add_header X-Test-Upstream $upstream_addr always;
${upstream}
${server}
}
`;
}

/** A folder for one nginx with a self-signed certificate for HOST, which the test's client trusts (and nothing else). */
function nginxFolder(): { dir: string; ca: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-nginx-'));
  // nginx's workers run as nobody when it is started as root: they must reach the temporary folders in here.
  fs.chmodSync(dir, 0o755);
  const request = `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=${HOST}`;
  const files = ['-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`];
  execFileSync('openssl', [...request.split(' '), '-addext', `subjectAltName=DNS:${HOST}`, ...files], {
    stdio: 'pipe',
  });
  return { dir, ca: fs.readFileSync(`${dir}/cert.pem`, 'utf8') };
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** nginx in the foreground on `conf`, in its own prefix folder; resolves once it accepts connections on `port`. */
async function startNginx(dir: string, conf: string, port: number): Promise<{ stop: () => Promise<void> }> {
  fs.writeFileSync(`${dir}/nginx.conf`, conf);
  const errorLog = `${dir}/error.log`;
  const globals = `daemon off; pid ${dir}/nginx.pid; error_log ${errorLog};`;
  const child = spawn(nginxBin!, ['-p', dir, '-c', `${dir}/nginx.conf`, '-e', errorLog, '-g', globals], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => (running = false));
  const stop = async () => {
    if (running) child.kill('SIGTERM');
    await exited;
  };
  for (const deadline = Date.now() + 10_000; !(await canConnect(port)); await sleep(50)) {
    if (!running || Date.now() > deadline) {
      await stop();
      const log = fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8') : '';
      throw new Error(`nginx did not start on ${conf}\n${output}\n${log}`);
    }
  }
  return { stop };
}

interface ProxyResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The app server(s) nginx passed the request to (X-Test-Upstream). */
  upstream: string;
}

const upstreamOf = (res: http.IncomingMessage) => String(res.headers['x-test-upstream'] ?? '');

/** A device's live stream read through nginx: its events as they arrive, and when the connection ends. */
class LiveStream {
  readonly events: { event: string; data: string }[] = [];
  readonly status: number;
  readonly upstream: string;
  readonly ended: Promise<void>;
  private closed = false;
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly req: http.ClientRequest,
    res: http.IncomingMessage,
  ) {
    this.status = res.statusCode ?? 0;
    this.upstream = upstreamOf(res);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.read(chunk));
    this.ended = new Promise((resolve) =>
      res.once('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      }),
    );
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let cut: number; (cut = this.buffer.indexOf('\n\n')) >= 0;) {
      const lines = this.buffer.slice(0, cut).split('\n');
      this.buffer = this.buffer.slice(cut + 2);
      if (lines.every((line) => line.startsWith(':'))) continue;
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
      this.events.push({ event, data: data.join('\n') });
    }
    this.wake();
  }

  private wake(): void {
    this.waiters.forEach((wake) => wake());
  }

  /** The first event named `name` after the first `after` events, waiting up to `timeoutMs`. */
  async next(name: string, after = 0, timeoutMs = 3000): Promise<{ event: string; data: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(after).find((each) => each.event === name);
      if (found) return found;
      if (this.closed || Date.now() > deadline) throw new Error(`no ${name} event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        setTimeout(wake, 50);
      });
    }
  }

  /** Waits for a change event of `collection` carrying the document `id`, after the first `after` events. */
  async change(collection: string, id: string, after: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let seen = after; ;) {
      const event = await this.next('change', seen, Math.max(0, deadline - Date.now()));
      seen = this.events.indexOf(event) + 1;
      const data = JSON.parse(event.data) as { collection: string; documents?: { id: string }[] };
      if (data.collection === collection && data.documents?.some((doc) => doc.id === id)) return;
    }
  }

  close(): void {
    this.req.destroy();
  }
}

/** A device reaching the app only through nginx over https, trusting the test's certificate, with a cookie jar. */
class ProxyClient {
  cookie = '';
  constructor(private readonly proxy: { port: number; ca: string }) {}

  private options(method: string, urlPath: string, headers: Record<string, string>): https.RequestOptions {
    const { port, ca } = this.proxy;
    const cookie = this.cookie ? { cookie: this.cookie } : {};
    return {
      ...{ host: '127.0.0.1', port, servername: HOST, ca, localAddress: CLIENT_ADDRESS, agent: false },
      ...{ method, path: urlPath, headers: { host: `${HOST}:${port}`, ...cookie, ...headers } },
    };
  }

  request(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const sent = payload === undefined ? headers : { 'content-type': 'application/json', ...headers };
    return new Promise<ProxyResponse>((resolve, reject) => {
      const req = https.request(this.options(method, urlPath, sent), (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          for (const cookie of res.headers['set-cookie'] ?? []) {
            const [, value] = /^sp_session=([^;]*)/.exec(cookie) ?? [];
            if (value !== undefined) this.cookie = value && !/Max-Age=0/i.test(cookie) ? `sp_session=${value}` : '';
          }
          const text = Buffer.concat(chunks).toString();
          let parsed: Record<string, unknown> = {};
          try {
            parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            parsed = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, upstream: upstreamOf(res) });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  get = (urlPath: string, headers?: Record<string, string>) => this.request('GET', urlPath, undefined, headers);
  post = (urlPath: string, body: unknown, headers?: Record<string, string>) =>
    this.request('POST', urlPath, body, headers);

  /** Opens the live stream; a proxy that buffers it may hold back even its headers, so that is a failure too. */
  openStream(timeoutMs = 3000): Promise<LiveStream> {
    return new Promise((resolve, reject) => {
      const req = https.request(this.options('GET', '/api/sync/stream', {}), (res) => {
        clearTimeout(timer);
        resolve(new LiveStream(req, res));
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`no answer to the live stream through nginx within ${timeoutMs} ms`));
      }, timeoutMs);
      // After the answer has begun, a cut connection is the stream's end (LiveStream.ended), not an error.
      req.on('error', reject);
      req.end();
    });
  }
}

/**
 * docs/deploy.md's nginx site in front of a stand-in that records what reaches the app: every location passes the
 * headers section 2 lists, and the port-80 block sends browsers to https.
 */
describe.skipIf(skipped !== null)("docs/deploy.md's nginx site, in front of a recorder", () => {
  let folder = { dir: '', ca: '' };
  const seen: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  const recorder = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.end('{}');
  });
  let nginx: { stop: () => Promise<void> } | undefined;
  const ports = { port: 0, redirectPort: 0 };

  beforeAll(async () => {
    folder = nginxFolder();
    const { dir } = folder;
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    const { port: recorderPort } = recorder.address() as net.AddressInfo; // listening on a TCP port, so an object
    Object.assign(ports, { port: await freePort(), redirectPort: await freePort() });
    const upstream = `127.0.0.1:${recorderPort}`;
    nginx = await startNginx(dir, configFromDoc({ dir, ...ports, upstreams: [upstream, upstream] }), ports.port);
  }, 30_000);

  afterAll(async () => {
    await nginx?.stop();
    await new Promise((resolve) => recorder.close(resolve));
    if (folder.dir) fs.rmSync(folder.dir, { recursive: true, force: true });
  });

  it("gives the app the client's own address, the Host and https on the live stream as on any other call", async () => {
    const client = new ProxyClient({ port: ports.port, ca: folder.ca });
    for (const urlPath of ['/api/config', '/api/sync/stream']) {
      expect((await client.get(urlPath, { 'x-forwarded-for': SPOOFED_ADDRESS })).status).toBe(200);
    }
    expect(
      seen.map(({ url, headers }) => [url, headers['x-forwarded-for'], headers.host, headers['x-forwarded-proto']]),
    ).toEqual([
      ['/api/config', CLIENT_ADDRESS, HOST, 'https'],
      ['/api/sync/stream', CLIENT_ADDRESS, HOST, 'https'],
    ]);
  });

  it('sends a plain-http visitor to the same address over https', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port: ports.redirectPort, path: '/feed?x=1', headers: { host: HOST } }, resolve)
        .on('error', reject),
    );
    res.resume();
    expect([res.statusCode, res.headers.location]).toEqual([301, `https://${HOST}/feed?x=1`]);
  });
});

/**
 * docs/deploy.md's "Two app servers behind nginx" for real: two app processes on one PostgreSQL database behind the
 * doc's nginx configuration, reached only over https through it.
 */
describe.skipIf(skipped !== null || pgBin === null)(
  'two app servers behind nginx, as docs/deploy.md sets them up',
  () => {
    let postgres: TestPostgres;
    let nginx: { stop: () => Promise<void> } | undefined;
    let servers: ServerProcess[] = [];
    const users = twoAccounts();
    const onPostgres = new ServersOnPostgres(() => postgres.url);
    let folder = { dir: '', ca: '' };
    const ports = { port: 0, redirectPort: 0 };
    const addressOf = (server: ServerProcess) => new URL(server.url).host;

    const signIn = async (email: string, headers: Record<string, string> = {}) => {
      const client = new ProxyClient({ port: ports.port, ca: folder.ca });
      const res = await client.post('/api/auth/login', { email, password: TEST_PASSWORD }, headers);
      if (res.status !== 200) throw new Error(`signing ${email} in through nginx answered ${res.status}`);
      return client;
    };

    /** The reader's and the writer's conversation: created by the first call (201), found by the next (200). */
    const conversationOf = async (writer: ProxyClient) => {
      const res = await writer.post('/api/conversations', { participantId: users.reader.id });
      expect([200, 201]).toContain(res.status);
      return `/api/conversations/${String(res.body.id)}/messages`;
    };

    beforeAll(async () => {
      folder = nginxFolder();
      postgres = await startTestPostgres(pgBin!);
      await insertAccounts(postgres.url, Object.values(users));
      Object.assign(ports, { port: await freePort(), redirectPort: await freePort() });
      // As section 1 of the doc sets them behind a proxy: the client's address from X-Forwarded-For, the https address.
      const env = { TRUST_PROXY: 'true', PUBLIC_URL: `https://${HOST}:${ports.port}` };
      servers = await Promise.all([onPostgres.start(env), onPostgres.start(env)]);
      const upstreams: [string, string] = [addressOf(servers[0]!), addressOf(servers[1]!)];
      nginx = await startNginx(folder.dir, configFromDoc({ dir: folder.dir, ...ports, upstreams }), ports.port);
    }, 120_000); // two server processes compiled and started on a two-core machine

    afterAll(async () => {
      await nginx?.stop();
      await onPostgres.stop();
      await postgres?.stop();
      if (folder.dir) fs.rmSync(folder.dir, { recursive: true, force: true });
    });

    it('signs in through nginx, and both app servers honour the session', async () => {
      const reader = await signIn(users.reader.email);
      const answers: ProxyResponse[] = [];
      for (let i = 0; i < 4; i++) answers.push(await reader.get('/api/auth/user'));
      expect(answers.map((res) => [res.status, res.body.email])).toEqual(
        Array.from({ length: 4 }, () => [200, users.reader.email]),
      );
      expect(new Set(answers.map((res) => res.upstream))).toEqual(new Set(servers.map(addressOf)));
    });

    it('writes the address nginx saw in the audit log, not the one the client put in X-Forwarded-For', async () => {
      await signIn(users.writer.email, { 'x-forwarded-for': SPOOFED_ADDRESS });
      const db = new pg.Client({ connectionString: postgres.url });
      await db.connect();
      const { rows } = await db.query<{ ip: string }>(
        `SELECT ip FROM audit_log WHERE action = 'auth.login' AND actor_email = $1`,
        [users.writer.email],
      );
      await db.end();
      expect(rows).toEqual([{ ip: CLIENT_ADDRESS }]);
    });

    it('brings a change written through nginx to a stream through nginx at once, not when a buffer fills', async () => {
      const [reader, writer] = [await signIn(users.reader.email), await signIn(users.writer.email)];
      const stream = await reader.openStream();
      expect(stream.status).toBe(200);
      await stream.next('RESYNC');
      const messages = await conversationOf(writer);
      const seen = stream.events.length;
      const sent = Date.now();
      const message = await writer.post(messages, { content: 'Through nginx' });
      expect(message.status).toBe(201);
      await stream.change('messages', String(message.body.id), seen, 2000);
      console.log(`nginx recipe: a message reached the stream ${Date.now() - sent} ms after it was sent`);
      stream.close();
    });

    it('answers every request through the other server once one is killed, and a stream reconnects to it', async () => {
      const [reader, writer] = [await signIn(users.reader.email), await signIn(users.writer.email)];
      const messages = await conversationOf(writer);
      const stream = await reader.openStream();
      await stream.next('RESYNC');
      const victim = servers.find((server) => addressOf(server) === stream.upstream)!;
      const survivor = servers.find((server) => server !== victim)!;

      await victim.kill();
      await within(stream.ended, 5000, 'the stream through nginx outlived its app server by 5 s');
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await reader.get('/api/auth/user')).status);
        statuses.push((await writer.post(messages, { content: `After the kill ${i}` })).status);
      }
      expect(statuses).toEqual(Array.from({ length: 6 }, () => [200, 201]).flat());

      const again = await reader.openStream();
      expect([again.status, again.upstream.split(', ').at(-1)]).toEqual([200, addressOf(survivor)]);
      await again.next('RESYNC');
      const seen = again.events.length;
      const message = await writer.post(messages, { content: 'To the reconnected stream' });
      expect(message.status).toBe(201);
      await again.change('messages', String(message.body.id), seen, 2000);
      again.close();
    }, 30_000);
  },
);

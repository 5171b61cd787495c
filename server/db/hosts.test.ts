import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { chooseServer, isServerLost, NoServerError, parseServers, type Probe } from './hosts';

/** What node-postgres makes of one of the URLs `urlFor` gives. */
function pgConfigOf(url: string) {
  const { host, port, user, password, database } = new pg.Client({ connectionString: url });
  return { host, port, user, password, database };
}

describe('reading the servers of a libpq-style DATABASE_URL', () => {
  it('reads host:port pairs after the @ and gives node-postgres one URL for each', () => {
    const url = 'postgres://portal:s%40cret@db1.internal:5432,db2.internal:5433/portal?target_session_attrs=read-write';
    const choice = parseServers(url);
    expect(choice.servers).toEqual([
      { host: 'db1.internal', port: 5432 },
      { host: 'db2.internal', port: 5433 },
    ]);
    expect(choice.sessionAttrs).toBe('read-write');
    expect(pgConfigOf(choice.urlFor(choice.servers[1]!))).toEqual({
      host: 'db2.internal',
      port: 5433,
      user: 'portal',
      password: 's@cret',
      database: 'portal',
    });
    expect(choice.urlFor(choice.servers[0]!)).not.toContain('target_session_attrs');
  });

  it('reads hosts without ports, IPv6 addresses in brackets, and keeps the other parameters', () => {
    const choice = parseServers('postgresql://u@[::1]:6543,db2/app?sslmode=disable&application_name=portal');
    expect(choice.servers).toEqual([
      { host: '::1', port: 6543 },
      { host: 'db2', port: null },
    ]);
    expect(choice.sessionAttrs).toBe('any');
    const second = new URL(choice.urlFor(choice.servers[1]!).replace('@/', '@x/'));
    expect(Object.fromEntries(second.searchParams)).toEqual({
      sslmode: 'disable',
      application_name: 'portal',
      host: 'db2',
    });
    expect(pgConfigOf(choice.urlFor(choice.servers[0]!))).toMatchObject({ host: '::1', port: 6543, database: 'app' });
  });

  it('reads host= and port= parameters, repeated or comma-separated, in place of the URL’s host', () => {
    const repeated = parseServers('postgres://u@ignored/app?host=db1&host=db2&port=5432&port=5433');
    expect(repeated.servers).toEqual([
      { host: 'db1', port: 5432 },
      { host: 'db2', port: 5433 },
    ]);
    const listed = parseServers('postgres:///app?host=db1,db2,%2Fvar%2Frun%2Fpostgresql&port=6000');
    expect(listed.servers.map((s) => `${s.host}:${s.port}`)).toEqual([
      'db1:6000',
      'db2:6000',
      '/var/run/postgresql:6000',
    ]);
    expect(pgConfigOf(listed.urlFor(listed.servers[2]!))).toMatchObject({ host: '/var/run/postgresql', port: 6000 });
    const portOnly = parseServers('postgres://u@db1,db2:7000/app?port=6001,6002');
    expect(portOnly.servers).toEqual([
      { host: 'db1', port: 6001 },
      { host: 'db2', port: 6002 },
    ]);
  });

  it('refuses ports that do not match the hosts, a bad port, and session attributes other than read-write or any', () => {
    expect(() => parseServers('postgres://u@/app?host=a,b,c&port=1,2')).toThrow(/3 hosts and 2 ports/);
    expect(() => parseServers('postgres://u@db1:99999/app')).toThrow(/port "99999"/);
    expect(() => parseServers('postgres://u@db1,db2/app?target_session_attrs=standby')).toThrow(/read-write or any/);
  });
});

describe('choosing a server as libpq does', () => {
  const url = 'postgres://u@db1:5432,db2:5432,db3:5432/app?target_session_attrs=read-write';
  /** A probe that answers for each host as told, and records the order it was asked in. */
  const fake = (answers: Record<string, 'read-write' | 'read-only' | 'down'>) => {
    const asked: string[] = [];
    const probe: Probe = (to) => {
      const host = pgConfigOf(to).host;
      asked.push(host);
      const answer = answers[host];
      return answer === 'down' || !answer
        ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
        : Promise.resolve(answer);
    };
    return { probe, asked };
  };

  it('takes the first writable server in the URL’s order, passing over one that is down and a standby', async () => {
    const { probe, asked } = fake({ db1: 'down', db2: 'read-only', db3: 'read-write' });
    expect(pgConfigOf(await chooseServer(parseServers(url), probe)).host).toBe('db3');
    expect(asked).toEqual(['db1', 'db2', 'db3']);
  });

  it('with any, takes the first that answers, standby or not', async () => {
    const { probe } = fake({ db1: 'down', db2: 'read-only', db3: 'read-write' });
    const any = url.replace('read-write', 'any');
    expect(pgConfigOf(await chooseServer(parseServers(any), probe)).host).toBe('db2');
  });

  it('says why each server was passed over when none takes writes', async () => {
    const { probe } = fake({ db1: 'down', db2: 'read-only', db3: 'read-only' });
    const failure = chooseServer(parseServers(url), probe);
    await expect(failure).rejects.toThrow(NoServerError);
    await expect(failure).rejects.toThrow(
      /db1:5432: connect ECONNREFUSED; db2:5432 is read-only; db3:5432 is read-only/,
    );
  });

  it('uses a URL naming one server, without read-write, as written and without probing it', async () => {
    const { probe, asked } = fake({});
    const single = 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable';
    expect(await chooseServer(parseServers(single), probe)).toBe(single);
    expect(asked).toEqual([]);
  });
});

describe('knowing when the server must be chosen again', () => {
  it('does for a demoted primary, a shutdown, a refused or reset connection, and not for an ordinary SQL error', () => {
    const withCode = (code: string) => Object.assign(new Error('x'), { code });
    for (const code of ['25006', '57P01', '57P02', '57P03', '08006', '08001', 'ECONNREFUSED', 'ECONNRESET']) {
      expect(isServerLost(withCode(code)), code).toBe(true);
    }
    for (const code of ['23505', '40001', '42P01', '55P03']) expect(isServerLost(withCode(code)), code).toBe(false);
    expect(isServerLost(new NoServerError('none'))).toBe(true);
    // As the query builder throws it: its own error, the driver's as its cause.
    expect(isServerLost(new Error('Failed query: insert into "posts"', { cause: withCode('57P01') }))).toBe(true);
    expect(isServerLost(new Error('Failed query: insert into "posts"', { cause: withCode('23505') }))).toBe(false);
    expect(isServerLost('Connection terminated')).toBe(false);
  });

  it('does for node-postgres’s own error when the server closes the connection (its wording, which has no code)', async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'u', database: 'd' });
    const error: unknown = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    server.close();
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^Connection terminated/);
    expect(isServerLost(error)).toBe(true);
  });
});

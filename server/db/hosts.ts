import pg from 'pg';

/** One server a URL names; `host` may be a Unix socket's folder, and `port` is null for node-postgres's default. */
export interface Server {
  host: string;
  port: number | null;
}

/**
 * A libpq-style URL taken apart (node-postgres takes one server): the servers it names in order, and whether a
 * session needs one that takes writes (`target_session_attrs=read-write`) or the first that answers (`any`).
 */
export interface Servers {
  /** The URL as written. */
  url: string;
  servers: Server[];
  sessionAttrs: 'read-write' | 'any';
  /** The URL with this one server in place of the list and without target_session_attrs, for node-postgres. */
  urlFor(server: Server): string;
}

/** The parameters that name the servers and the choice among them: read here, not passed on to node-postgres. */
const CHOICE_PARAMS = ['host', 'port', 'target_session_attrs'];

/**
 * Reads the servers of a URL as libpq does: `host1:port1,host2:port2` after the `@`, or `host=` and `port=` parameters
 * (each a comma-separated list, or repeated), which take the place of the URL's own; one port serves every host.
 */
export function parseServers(url: string): Servers {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(?:\?([^#]*))?$/.exec(url);
  if (!match) throw new Error('DATABASE_URL must look like postgres://user:password@host:port/database');
  const [, scheme = '', authority = '', path = '', query = ''] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const params = new URLSearchParams(query);
  const listed = (name: string) => params.getAll(name).flatMap((value) => value.split(','));

  let hosts: string[];
  let ports: string[];
  if (params.has('host')) {
    hosts = listed('host');
    ports = listed('port');
  } else {
    // Each `name`, `name:port`, `[v6 address]` or `[v6 address]:port`.
    const written = authority
      .slice(at + 1)
      .split(',')
      .map((entry) => /^(?:\[([^\]]*)\]|([^:]*))(?::(.*))?$/.exec(entry));
    if (written.includes(null)) throw new Error('DATABASE_URL names a host it cannot read');
    hosts = written.map((parts) => decodeURIComponent(parts![1] ?? parts![2]!));
    ports = params.has('port') ? listed('port') : written.map((parts) => parts![3] ?? '');
  }
  if (ports.length > 1 && ports.length !== hosts.length) {
    throw new Error(
      `DATABASE_URL names ${hosts.length} hosts and ${ports.length} ports; give one port or one for each`,
    );
  }
  const servers = hosts.map((host, i) => ({ host, port: portOf(ports.length === 1 ? ports[0]! : (ports[i] ?? '')) }));

  const attrs = params.get('target_session_attrs') ?? 'any';
  if (attrs !== 'read-write' && attrs !== 'any') {
    throw new Error(`DATABASE_URL's target_session_attrs must be read-write or any, not ${attrs}`);
  }
  const rest = [...params].filter(([name]) => !CHOICE_PARAMS.includes(name));
  return {
    url,
    servers,
    sessionAttrs: attrs,
    // Through parameters, which node-postgres reads before the URL's host: one form for names, addresses and sockets.
    urlFor: (server) => {
      const own = new URLSearchParams([...rest, ['host', server.host]]);
      if (server.port !== null) own.set('port', String(server.port));
      return `${scheme}${userinfo}${path || '/'}?${own}`;
    },
  };
}

function portOf(text: string): number | null {
  if (text === '') return null;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`DATABASE_URL names port "${text}"`);
  return port;
}

/** What a server said it is, or why it did not answer. */
export type Probe = (url: string) => Promise<'read-write' | 'read-only'>;

/** How long a server that does not answer is waited for, unless the URL's connect_timeout (libpq's) says. */
const PROBE_TIMEOUT_MS = 5_000;

/** Connects, asks whether the server takes writes as libpq's read-write check does, and disconnects. */
export const probeServer: Probe = async (url) => {
  const seconds = Number(new URLSearchParams(url.split('?')[1]).get('connect_timeout'));
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: seconds > 0 ? seconds * 1000 : PROBE_TIMEOUT_MS,
  });
  client.on('error', () => undefined); // the server went away between the answer and the end
  try {
    await client.connect();
    const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
    return rows[0]?.transaction_read_only === 'off' ? 'read-write' : 'read-only';
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** Raised when no server of the URL answered as the session needs; the next connection tries them all again. */
export class NoServerError extends Error {}

/**
 * libpq's choice for node-postgres: the URL of the first server, in the URL's order, that answers and (for
 * read-write) takes writes. A URL naming one server with `any` is used as written, unprobed, as before.
 */
export async function chooseServer(choice: Servers, probe: Probe = probeServer): Promise<string> {
  if (choice.servers.length === 1 && choice.sessionAttrs === 'any') return choice.url;
  const refusals: string[] = [];
  for (const server of choice.servers) {
    const url = choice.urlFor(server);
    const where = `${server.host}:${server.port ?? 'default port'}`;
    try {
      const kind = await probe(url);
      if (kind === 'read-write' || choice.sessionAttrs === 'any') return url;
      refusals.push(`${where} is read-only`);
    } catch (error) {
      refusals.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const wanted = choice.sessionAttrs === 'read-write' ? 'takes writes' : 'answers';
  throw new NoServerError(`No PostgreSQL server of DATABASE_URL ${wanted} (${refusals.join('; ')})`);
}

/** SQLSTATEs of a server that went away, is starting or stopping, or now refuses writes (a demoted primary). */
const LOST_STATES = new Set(['25006', '57P01', '57P02', '57P03']);
const LOST_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres's own errors for a connection that ended or timed out, which carry no code. */
const LOST_MESSAGES = /^(Connection terminated|Client has encountered a connection error)/;

/**
 * Whether an error says the server must be chosen again: it went away, is restarting, or has become read-only. The
 * query builder wraps the driver's error in one of its own (its `cause`), so the causes are read too.
 */
export function isServerLost(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error)) return false;
  if (error.cause !== undefined && depth < 5 && isServerLost(error.cause, depth + 1)) return true;
  if (error instanceof NoServerError) return true;
  const code = 'code' in error ? error.code : undefined;
  if (typeof code === 'string' && (LOST_STATES.has(code) || code.startsWith('08') || LOST_SOCKET_CODES.has(code))) {
    return true;
  }
  return LOST_MESSAGES.test(error.message);
}

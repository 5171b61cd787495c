import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrimaryPool } from '../../db/engine';
import { chooseServer, parseServers } from '../../db/hosts';
import type { Logger } from '../../lib/context';
import type { SyncCollection } from '../../../schema/sync';
import type { SyncHub } from './sync.hub';

/** The PostgreSQL channel the servers of one database tell each other about committed changes on. */
export const FANOUT_CHANNEL = 'staff_portal_sync';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a message is cut below that. */
const MAX_PAYLOAD = 7_500;
const RECONNECT_MS = 1_000;

/** What one server tells the others, in one notification. */
interface Message {
  /** The sending server, which ignores its own messages. */
  from: string;
  /** Changes: a collection and the users it concerns, or null for everyone. */
  c?: [SyncCollection, string[] | null][];
  /** Users whose streams are to be closed. */
  u?: string[];
  /** Sessions whose streams are to be closed. */
  s?: string[];
}

export interface ServersFanout {
  /** The hub to give the app: this server's, telling the other servers of every change too. */
  hub: SyncHub;
  /** Stops listening (server shutdown). */
  stop: () => Promise<void>;
}

/**
 * Several servers on one PostgreSQL database (decision 158): after each commit a server tells the others, through
 * `LISTEN/NOTIFY`, which collection changed for which users; each passes what it hears to its own hub, which reads
 * the changed documents from the shared database as it does for its own changes. A lost notification (a listener
 * reconnecting) only delays a change until the next pull or the catch-up told to every stream on reconnecting.
 */
export async function fanOutBetweenServers(
  local: SyncHub,
  url: string,
  collections: readonly SyncCollection[],
  log: Logger,
): Promise<ServersFanout> {
  const self = randomUUID();
  // Both follow the primary of a URL naming several servers, as the app's pool does (docs/deploy.md).
  const servers = parseServers(url);
  const publisher = new PrimaryPool(url, { max: 1 });
  let stopped = false;
  let listener: pg.Client | null = null;

  const hear = (payload: string | undefined) => {
    let message: Message;
    try {
      message = JSON.parse(payload ?? '') as Message;
    } catch {
      return;
    }
    if (message.from === self) return;
    for (const [collection, userIds] of message.c ?? []) local.notify(collection, userIds ?? undefined);
    for (const userId of message.u ?? []) local.disconnectUser(userId);
    for (const sessionHash of message.s ?? []) local.disconnectSession(sessionHash);
  };

  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: await chooseServer(servers) });
    client.on('notification', (notification) => hear(notification.payload));
    const lost = (error?: unknown) => {
      if (listener !== client) return;
      listener = null;
      client.removeAllListeners('end');
      void client.end().catch(() => undefined);
      if (stopped) return;
      log.error('The live-change listener lost PostgreSQL; reconnecting', error);
      setTimeout(reconnect, RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`LISTEN ${FANOUT_CHANNEL}`);
    listener = client;
  };

  const reconnect = () => {
    if (stopped) return;
    listen().then(
      // What was told while not listening is caught up: every stream checks every collection once.
      () => collections.forEach((collection) => local.notify(collection)),
      (error: unknown) => {
        log.error('Could not listen for other servers’ changes; trying again', error);
        setTimeout(reconnect, RECONNECT_MS).unref();
      },
    );
  };

  await listen();

  let outgoing: Omit<Message, 'from'> = {};
  let flushScheduled = false;
  const send = (message: Message) => {
    publisher
      .query({ text: 'SELECT pg_notify($1, $2)', values: [FANOUT_CHANNEL, JSON.stringify(message)] })
      .catch((error: unknown) => log.error('Could not tell the other servers of a change', error));
  };
  const flush = () => {
    flushScheduled = false;
    const batch = outgoing;
    outgoing = {};
    if (stopped) return;
    for (const message of cut(batch, self)) send(message);
  };
  const queue = (add: (message: Omit<Message, 'from'>) => void) => {
    add(outgoing);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  const hub: SyncHub = {
    ...local,
    notify: (collection, userIds) => {
      const ids = userIds === undefined ? undefined : [...userIds];
      local.notify(collection, ids);
      queue((message) => (message.c ??= []).push([collection, ids ?? null]));
    },
    disconnectUser: (userId) => {
      local.disconnectUser(userId);
      queue((message) => (message.u ??= []).push(userId));
    },
    disconnectSession: (sessionHash) => {
      local.disconnectSession(sessionHash);
      queue((message) => (message.s ??= []).push(sessionHash));
    },
  };

  return {
    hub,
    stop: async () => {
      stopped = true;
      const client = listener;
      listener = null;
      await client?.end().catch(() => undefined);
      await publisher.end().catch(() => undefined);
    },
  };
}

/**
 * Cuts a batch into messages under PostgreSQL's payload limit. A change naming more users than fit in one message
 * goes to everyone instead: each server's hub then checks all its streams, which costs reads, never a lost change.
 */
export function cut(batch: Omit<Message, 'from'>, from: string): Message[] {
  const messages: Message[] = [];
  let current: Message = { from };
  let size = JSON.stringify(current).length;
  const room = (extra: number) => {
    if (size + extra <= MAX_PAYLOAD) return;
    messages.push(current);
    current = { from };
    size = JSON.stringify(current).length;
  };
  for (const [collection, userIds] of batch.c ?? []) {
    let entry: [SyncCollection, string[] | null] = [collection, userIds];
    if (JSON.stringify(entry).length + 40 > MAX_PAYLOAD) entry = [collection, null];
    const length = JSON.stringify(entry).length + 8;
    room(length);
    (current.c ??= []).push(entry);
    size += length;
  }
  for (const key of ['u', 's'] as const) {
    for (const value of batch[key] ?? []) {
      const length = JSON.stringify(value).length + 8;
      room(length);
      (current[key] ??= []).push(value);
      size += length;
    }
  }
  if (current.c || current.u || current.s) messages.push(current);
  return messages;
}

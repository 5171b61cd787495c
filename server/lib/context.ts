import type { HttpBindings } from '@hono/node-server';
import type { Config } from '../config';
import type { AfterCommit, Db } from '../db/client';
import type { CurrentUser } from '../../schema/auth';
import type { SyncHub } from '../features/sync/sync.hub';
import type { Mailer } from './mail';
import type { HostResolver } from './push';

/** A signed-in user as the server sees it for a request. */
export type SessionUser = CurrentUser;

/** Things every request can reach: passed to createApp so tests build a fresh app. */
export interface AppDeps {
  config: Config;
  db: Db;
  /** The transport; only the mail outbox sends through it (decision 124). */
  mailer: Mailer;
  /** The mail outbox worker, woken when a mail is queued. */
  outbox: { wake: () => void };
  /** Milliseconds now; tests move it to check expiry rules. */
  now: () => number;
  log: Logger;
  /** Live sync streams: told about every committed change to a synced collection. */
  hub: SyncHub;
  /** How push endpoints' hosts are resolved; the system's DNS unless a test keeps pushes on loopback. */
  resolveHost?: HostResolver;
  /** Inside a transaction (`inTransaction`): runs a function once it has committed, never if it rolls back. */
  afterCommit?: AfterCommit;
}

export interface Logger {
  info: (message: string) => void;
  error: (message: string, error?: unknown) => void;
}

export interface AppEnv {
  /** The Node request and response under @hono/node-server (the live stream writes to it directly). */
  Bindings: HttpBindings;
  Variables: {
    deps: AppDeps;
    db: Db;
    ip: string;
    user: SessionUser;
    sessionHash: string;
    /** The folder of this request's form files (server/lib/multipart.ts), removed once it is answered. */
    formDir?: string;
  };
}

/** Where a request came from, for the audit log and rate limits. */
export interface RequestMeta {
  ip: string;
  userAgent: string | null;
}

import { startAccessDigest } from './features/admin/access.service';
import { startAccessExpiry } from './features/admin/admin.service';
import fs from 'node:fs';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import { baseUrl, type Config } from './config';
import { closeDb, exclusive, lockDataDir, openDatabase, type Db } from './db/client';
import { ALERT_REMINDER_CHECK_MS } from '../schema/alerts';
import { startAlertReminders } from './features/alerts/alerts.service';
import { startConfirmReminders } from './features/confirmations/confirmations.service';
import { startPostPublisher } from './features/posts/scheduled-posts.service';
import { SCHEDULED_POSTS_CHECK_MS } from '../schema/posts';
import { ensureFirstAdmin, isSessionLive, sweepExpired } from './features/auth/auth.service';
import { pruneDeviceStates } from './features/sync/device-states.queries';
import { startMailOutbox, type MailOutbox } from './features/mail/mail.service';
import { ensureHouseChats } from './features/chat/chat.service';
import { ensureVapidKeys, settlePushes, startHeldPushes } from './features/push/push.service';
import { startUploadSweeps } from './features/uploads/uploads.service';
import { createSyncHub, POSTGRES_LANE_SLICE } from './features/sync/sync.hub';
import { hubDeliveryOf } from './features/sync/sync.delivery';
import { fanOutBetweenServers } from './features/sync/sync.fanout';
import { SYNC_COLLECTIONS } from '../schema/sync';
import type { AppDeps, Logger } from './lib/context';
import { createMailer } from './lib/mail';
import { formFilesDir } from './lib/multipart';
import type { HostResolver } from './lib/push';

/** How often ended bursts of pushes are looked for: a summary goes out at most this long after its window. */
const HELD_PUSH_CHECK_MS = 5_000;

export interface RunningServer {
  url: string;
  port: number;
  deps: AppDeps;
  /** The emergency-alert reminder scheduler; `check()` runs one check at once (tests). */
  reminders: { check: () => Promise<number> };
  /** The confirmation reminder scheduler (decision 136); `check()` runs one check at once (tests). */
  confirmReminders: { check: () => Promise<number> };
  /** The publisher of scheduled posts (decision 141); `check()` publishes those due at once (tests). */
  publisher: { check: () => Promise<number> };
  /** The end of bank and agency staff's access (decision 145); `check()` ends those due at once (tests). */
  accessExpiry: { check: () => Promise<number> };
  /** The daily e-mail of accounts whose access ends within 48 hours (decision 147). */
  accessDigest: { check: () => Promise<number> };
  /** Summaries of held pushes (decision 125); `flush()` sends those whose window has ended at once (tests). */
  heldPushes: { flush: () => Promise<number> };
  /** The sweep of uploads no post uses (decision 126); `sweep()` runs one at once (tests). */
  uploadSweeps: { sweep: () => Promise<number> };
  /** The mail outbox worker; `settle()` waits until nothing due is left to try (tests). */
  outbox: MailOutbox;
  close: () => Promise<void>;
}

/** A console logger that honours LOG_LEVEL and never prints a stack to a user (only to the console). */
export function createLogger(level: Config['logLevel']): Logger {
  return {
    info: (message) => level === 'info' && console.log(message),
    error: (message, error) => level !== 'silent' && console.error(message, error ?? ''),
  };
}

/** The database file inside the data folder. */
export function databaseFile(config: Config): string {
  return path.join(config.dataDir, 'staff-portal.db');
}

/**
 * Starts the whole server on its data folder: lock, migrations, first administrator, HTTP. Used by
 * `npm start`, `npm run demo` and the end-to-end tests, so all of them run the same code.
 */
export async function startServer(
  config: Config,
  options: {
    clientDir?: string;
    now?: () => number;
    reminderCheckMs?: number;
    /** How often scheduled posts are looked for; journeys check more often than the 30 s of production. */
    publishCheckMs?: number;
    /** How often ended access is looked for; journeys check more often than the minute of production. */
    accessCheckMs?: number;
    resolveHost?: HostResolver;
  } = {},
): Promise<RunningServer> {
  const log = createLogger(config.logLevel);
  const unlock = lockDataDir(config.dataDir);
  // Files of forms a stopped server was reading are no one's now.
  fs.rmSync(formFilesDir(config.dataDir), { recursive: true, force: true });
  let db: Db;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, file: databaseFile(config) });
  } catch (error) {
    unlock();
    throw error;
  }
  // A copy, so the port actually bound (PORT=0 in tests) reaches links in mail and on the console.
  const runtimeConfig: Config = { ...config };
  // Change events carry the change unless the server is set to only announce it (decision 131).
  const ownHub = createSyncHub({
    delivery: config.syncDelivery === 'documents' ? hubDeliveryOf(() => deps) : undefined,
    // A PostgreSQL writer waits for a turn between its round trips, holding the write lock: shorter turns (decision 164).
    ...(config.databaseUrl && { laneSlice: POSTGRES_LANE_SLICE }),
  });
  // Several servers on one PostgreSQL tell each other of their changes (decision 158).
  const fanout = config.databaseUrl
    ? await fanOutBetweenServers(ownHub, config.databaseUrl, SYNC_COLLECTIONS, log)
    : null;
  const hub = fanout?.hub ?? ownHub;
  const base = {
    config: runtimeConfig,
    db,
    mailer: createMailer(config, log),
    now: options.now ?? Date.now,
    log,
    hub,
    resolveHost: options.resolveHost,
  };
  // Started with the server and stopped by its close, so no test's server leaves a worker behind (decision 124).
  const outbox = startMailOutbox(base);
  const deps: AppDeps = { ...base, outbox };
  hub.checkSessionsWith((sessionHash) => isSessionLive(deps, sessionHash));
  await ensureVapidKeys(deps);
  await ensureHouseChats(deps);
  const app = createApp(deps, options);
  await pruneDeviceStates(db, deps.now());
  const sweep = setInterval(() => {
    exclusive(db, 'Sweeping expired sessions', () => sweepExpired(deps)).catch((error: unknown) =>
      log.error('Sweeping expired sessions failed', error),
    );
  }, 60_000);
  sweep.unref();
  const reminders = startAlertReminders(deps, options.reminderCheckMs ?? ALERT_REMINDER_CHECK_MS);
  const confirmReminders = startConfirmReminders(deps, options.reminderCheckMs ?? ALERT_REMINDER_CHECK_MS);
  const publisher = startPostPublisher(deps, options.publishCheckMs ?? SCHEDULED_POSTS_CHECK_MS);
  const heldPushes = startHeldPushes(deps, HELD_PUSH_CHECK_MS);
  const uploadSweeps = startUploadSweeps(deps);
  // Within a minute of its end, an agency or bank worker's access is gone (decision 145).
  const accessExpiry = startAccessExpiry(deps, options.accessCheckMs ?? 60_000);
  // Once a day, System Administrators hear of accounts whose access ends within 48 hours (decision 147).
  const accessDigest = startAccessDigest(deps, 60 * 60_000);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  runtimeConfig.port = port;
  const first = await ensureFirstAdmin(deps);
  if (first?.created) log.info(`Created the System Administrator ${first.created} from ADMIN_EMAIL.`);
  if (first?.setupLink) {
    console.log(
      `\nNo System Administrator exists yet. Open this one-time link to create the first one:\n\n  ${first.setupLink}\n`,
    );
  }
  let closed = false;
  return {
    url: config.publicUrl ?? `http://localhost:${port}`,
    port,
    deps,
    reminders,
    confirmReminders,
    publisher,
    accessExpiry,
    accessDigest,
    heldPushes,
    uploadSweeps,
    outbox,
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      // A run in progress ends before the database closes.
      const jobsStopped = Promise.all([
        reminders.stop(),
        confirmReminders.stop(),
        publisher.stop(),
        accessExpiry.stop(),
        accessDigest.stop(),
      ]);
      const sweeping = uploadSweeps.stop();
      hub.close();
      await fanout?.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await outbox.stop();
      // Held pushes go now as their summaries; pushes in flight may still remove a gone subscription: let them
      // finish (each gives up after 10 s).
      await jobsStopped;
      await heldPushes.stop();
      await settlePushes(deps);
      await sweeping;
      await closeDb(db);
      unlock();
    },
  };
}

export { baseUrl };

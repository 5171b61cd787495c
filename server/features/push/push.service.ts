import { randomUUID } from 'node:crypto';
import {
  PUSH_BURST_LIMIT,
  PUSH_BURST_WINDOW_MS,
  PUSH_MESSAGES,
  PUSH_SUBSCRIPTIONS_PER_USER,
  TEST_NOTIFICATION_LIMIT,
  TEST_NOTIFICATION_WINDOW_MS,
  type PushPayload,
  type PushStatus,
  type PushSubscribeBody,
  type PushUnsubscribeBody,
} from '../../../schema/push';
import type { AppDeps, SessionUser } from '../../lib/context';
import { forbidden, tooManyRequests } from '../../lib/errors';
import {
  createPushSender,
  generateVapidKeys,
  PushRefusedError,
  type PushOptions,
  type PushSender,
  type VapidKeys,
} from '../../lib/push';
import {
  countSubscriptionsOf,
  deleteGoneSubscription,
  deleteSubscriptionsOfUser,
  deleteUserSubscription,
  findSetting,
  insertSettingIfAbsent,
  insertTestSend,
  listActiveSubscriptions,
  listBursts,
  listRecentTestSends,
  saveBursts,
  takeEndedBursts,
  trimSubscriptions,
  upsertSubscription,
  type PushBurstRow,
  type PushSubscriptionRow,
} from './push.queries';
import { appDbOf, inTransaction, whenCommitted } from '../../db/client';

const VAPID_PUBLIC = 'vapid_public_key';
const VAPID_PRIVATE = 'vapid_private_key';
const DAY_SECONDS = 24 * 60 * 60;

/**
 * A push that is held back when one person causes many of its kind to the same colleague (decision 125): `key`
 * names the kind and the person (`announcement:{authorId}`, `chat:{conversationId}`), `summary` says how many
 * were held, in the same content-free words as the pushes it stands for (decision 36).
 */
export interface Coalescing {
  key: string;
  summary: SummaryOf;
}

/** What a summary of held pushes says, kept with its burst in the database (decision 159): which words, whose. */
export type SummaryOf =
  | { kind: 'announcements'; authorFirstName: string }
  | { kind: 'chat'; senderFirstName: string; conversationId: string }
  | { kind: 'mentions'; authorFirstName: string };

/** What the push machinery keeps per running app: keys, the sender, sends in flight. */
interface PushState {
  vapid?: VapidKeys;
  sender: PushSender;
  inFlight: Set<Promise<void>>;
}
/**
 * Kept by the app's configuration (each server has its own), which every copy of its dependencies shares:
 * `inTransaction` hands the work a copy of `deps` (with the transaction's `db` and a hub of its own), and that copy must
 * find the same keys, bursts and sends in flight.
 */
const states = new WeakMap<object, PushState>();
const stateKey = (deps: AppDeps): object => (deps.config as AppDeps['config'] | undefined) ?? deps;

function stateOf(deps: AppDeps): PushState {
  let state = states.get(stateKey(deps));
  if (!state) {
    state = {
      sender: createPushSender(deps.config, deps.resolveHost),
      inFlight: new Set(),
    };
    states.set(stateKey(deps), state);
  }
  return state;
}

/** The VAPID key pair: made on first start and kept in the settings table, so subscriptions outlive restarts. */
export async function ensureVapidKeys(deps: AppDeps): Promise<VapidKeys> {
  const state = stateOf(deps);
  if (state.vapid) return state.vapid;
  if (!(await findSetting(deps.db, VAPID_PUBLIC)) || !(await findSetting(deps.db, VAPID_PRIVATE))) {
    const keys = generateVapidKeys();
    await inTransaction(deps, async (deps) => {
      await insertSettingIfAbsent(deps.db, VAPID_PUBLIC, keys.publicKey);
      await insertSettingIfAbsent(deps.db, VAPID_PRIVATE, keys.privateKey);
    });
  }
  state.vapid = {
    publicKey: (await findSetting(deps.db, VAPID_PUBLIC))!,
    privateKey: (await findSetting(deps.db, VAPID_PRIVATE))!,
  };
  return state.vapid;
}

/** GET /api/push/vapid-public-key */
export async function vapidPublicKey(deps: AppDeps): Promise<{ publicKey: string }> {
  return { publicKey: (await ensureVapidKeys(deps)).publicKey };
}

/** GET /api/push/subscription-status: a count, never an endpoint or keys. */
export async function pushStatus(deps: AppDeps, actor: SessionUser): Promise<PushStatus> {
  const subscriptionCount = await countSubscriptionsOf(deps.db, actor.id);
  return { hasSubscription: subscriptionCount > 0, debug: { subscriptionCount } };
}

/**
 * POST /api/push/subscribe. An endpoint belongs to one browser, so to one user at a time: subscribing it
 * again (someone else signed in on that browser) moves it. A user keeps their newest ten.
 */
export async function subscribe(deps: AppDeps, actor: SessionUser, body: PushSubscribeBody): Promise<PushStatus> {
  await inTransaction(deps, async (deps) => {
    await upsertSubscription(deps.db, {
      id: randomUUID(),
      userId: actor.id,
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
      createdAt: deps.now(),
    });
    await trimSubscriptions(deps.db, actor.id, PUSH_SUBSCRIPTIONS_PER_USER);
  });
  return pushStatus(deps, actor);
}

/** POST /api/push/unsubscribe: forgets the endpoint if it is the user's; anyone else's is left alone. */
export async function unsubscribe(deps: AppDeps, actor: SessionUser, body: PushUnsubscribeBody): Promise<PushStatus> {
  await deleteUserSubscription(deps.db, actor.id, body.endpoint);
  return pushStatus(deps, actor);
}

/** A deactivated user's devices must stop receiving pushes at once. */
export async function removeSubscriptionsOf(deps: AppDeps, userId: string): Promise<void> {
  await deleteSubscriptionsOfUser(deps.db, userId);
}

/**
 * Sends to each subscription once the transaction it was asked in has committed (at once outside one), after the
 * current task has finished; never throws. A phone opened by a push must find the change there to pull, and a change
 * rolled back pushes nothing. A gone subscription is removed through the app's database handle: the transaction has
 * ended by then.
 */
async function deliver(
  deps: AppDeps,
  rows: PushSubscriptionRow[],
  payload: PushPayload,
  options: PushOptions,
): Promise<number> {
  if (rows.length === 0) return 0;
  const state = stateOf(deps);
  const vapid = await ensureVapidKeys(deps);
  const body = JSON.stringify(payload);
  const db = appDbOf(deps.db);
  const sendOne = async (row: PushSubscriptionRow) => {
    try {
      const target = { endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } };
      const status = await state.sender.send(target, body, vapid, options);
      if (status === 404 || status === 410) await deleteGoneSubscription(db, row.endpoint, row.p256dh);
      else if (status >= 400) deps.log.error(`Push service answered ${status} (${payload.data.type})`);
    } catch (error) {
      if (error instanceof PushRefusedError) {
        // Not a push service (any more): it will never be sent to, so it is forgotten (decision 125).
        deps.log.error(`Push refused and its subscription removed (${payload.data.type}): ${error.message}`);
        await deleteGoneSubscription(db, row.endpoint, row.p256dh);
      } else deps.log.error(`Push failed (${payload.data.type})`, error);
    }
  };
  whenCommitted(deps, () => {
    const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => Promise.all(rows.map(sendOne)))
      .then(() => undefined)
      .finally(() => state.inFlight.delete(job));
    state.inFlight.add(job);
  });
  return rows.length;
}

/**
 * The subscriptions of the colleagues still within their budget for this kind of push; the others' pushes are
 * counted as held, to be summed up when their window ends (decision 125). The counts are in the database, read and
 * written in one transaction, so they hold across servers (decision 159).
 */
async function withinBudget(
  deps: AppDeps,
  rows: PushSubscriptionRow[],
  options: PushOptions,
  coalescing: Coalescing,
): Promise<PushSubscriptionRow[]> {
  const userIds = [...new Set(rows.map((row) => row.userId))];
  const admitted = await inTransaction(deps, async (deps) => {
    const now = deps.now();
    const { key } = coalescing;
    const known = new Map((await listBursts(deps.db, key, userIds)).map((burst) => [burst.userId, burst]));
    const latest = { summary: JSON.stringify(coalescing.summary), options: JSON.stringify(options) };
    const ended: PushBurstRow[] = [];
    const next: PushBurstRow[] = [];
    const within = new Set<string>();
    for (const userId of userIds) {
      let burst = known.get(userId);
      if (!burst || now >= burst.windowStart + PUSH_BURST_WINDOW_MS) {
        if (burst) ended.push(burst);
        burst = { key, userId, windowStart: now, sent: 0, held: 0, ...latest };
      }
      if (burst.sent < PUSH_BURST_LIMIT) {
        within.add(userId);
        next.push({ ...burst, sent: burst.sent + 1 });
      } else next.push({ ...burst, held: burst.held + 1, ...latest });
    }
    await saveBursts(deps.db, next);
    for (const burst of ended) await sendSummary(deps, burst);
    return within;
  });
  return rows.filter((row) => admitted.has(row.userId));
}

/** The one push that stands for those held in a burst, to the colleague's devices as they are now. */
async function sendSummary(deps: AppDeps, burst: PushBurstRow): Promise<boolean> {
  if (burst.held === 0) return false;
  await deliver(
    deps,
    await listActiveSubscriptions(deps.db, { userIds: [burst.userId] }),
    summaryPush(JSON.parse(burst.summary) as SummaryOf, burst.held),
    JSON.parse(burst.options) as PushOptions,
  );
  return true;
}

/**
 * Ends the bursts whose window has passed (every one with `all`, at shutdown), sending one summary for each
 * that held pushes; answers how many summaries went out.
 */
export async function flushHeldPushes(deps: AppDeps, all = false): Promise<number> {
  const ended = await takeEndedBursts(deps.db, all ? Number.MAX_SAFE_INTEGER : deps.now() - PUSH_BURST_WINDOW_MS);
  let summaries = 0;
  for (const burst of ended) if (await sendSummary(deps, burst)) summaries += 1;
  return summaries;
}

/** Checks for ended bursts every `everyMs`; `stop` sends what is still held (server shutdown). */
export function startHeldPushes(
  deps: AppDeps,
  everyMs: number,
): { flush: () => Promise<number>; stop: () => Promise<void> } {
  const timer = setInterval(() => {
    flushHeldPushes(deps).catch((error: unknown) => deps.log.error('Sending held pushes failed', error));
  }, everyMs);
  timer.unref();
  return {
    flush: () => flushHeldPushes(deps),
    stop: async () => {
      clearInterval(timer);
      await flushHeldPushes(deps, true);
    },
  };
}

/**
 * Pushes to these users' devices (active users only). With `coalescing`, a colleague over the burst limit gets a
 * summary later instead (decision 125); alerts pass none. Asked inside a transaction, all of it (whose devices, the
 * budget) runs once that has committed, in a transaction of its own (decision 164).
 */
export async function pushToUsers(
  deps: AppDeps,
  userIds: string[],
  payload: PushPayload,
  options: PushOptions,
  coalescing?: Coalescing,
): Promise<void> {
  await pushOnceCommitted(deps, (db) => listActiveSubscriptions(db, { userIds }), payload, options, coalescing);
}

/** Pushes to every active user's devices but one user's (the author of an announcement), as pushToUsers. */
export async function pushToEveryoneBut(
  deps: AppDeps,
  userId: string,
  payload: PushPayload,
  options: PushOptions,
  coalescing?: Coalescing,
): Promise<void> {
  await pushOnceCommitted(
    deps,
    (db) => listActiveSubscriptions(db, { exceptUserId: userId }),
    payload,
    options,
    coalescing,
  );
}

/**
 * Runs a push now outside a transaction, else once the transaction has committed: its reads and the budget's writes
 * then do not lengthen the writer's hold of the lock every writer takes (decision 157), and a change rolled back
 * pushes nothing. The push touches only the database, so it runs on the app's connection.
 */
async function pushOnceCommitted(
  deps: AppDeps,
  audience: (db: AppDeps['db']) => Promise<PushSubscriptionRow[]>,
  payload: PushPayload,
  options: PushOptions,
  coalescing: Coalescing | undefined,
): Promise<void> {
  const push = async (deps: AppDeps) => {
    const rows = await audience(deps.db);
    if (rows.length === 0) return; // no device to push to: no budget to count either
    await deliver(deps, coalescing ? await withinBudget(deps, rows, options, coalescing) : rows, payload, options);
  };
  if (!deps.afterCommit) return await push(deps);
  const outside: AppDeps = { ...deps, db: appDbOf(deps.db), afterCommit: undefined };
  const state = stateOf(deps);
  deps.afterCommit(() => {
    const job: Promise<void> = push(outside)
      .catch((error: unknown) => deps.log.error(`Push failed (${payload.data.type})`, error))
      .finally(() => state.inFlight.delete(job));
    state.inFlight.add(job);
  });
}

/** Waits for the pushes in flight (server shutdown, tests). */
export async function settlePushes(deps: AppDeps): Promise<void> {
  const state = states.get(stateKey(deps));
  while (state && state.inFlight.size > 0) await Promise.all([...state.inFlight]);
}

/**
 * POST /api/test-notification/{userId}: only to oneself, with the server's own text whatever the client
 * sends, at most three in ten minutes.
 */
export async function sendTestNotification(
  deps: AppDeps,
  actor: SessionUser,
  userId: string,
): Promise<{ sent: number }> {
  if (userId !== actor.id) forbidden(PUSH_MESSAGES.testOwnOnly);
  const now = deps.now();
  await inTransaction(deps, async (deps) => {
    const recent = await listRecentTestSends(deps.db, actor.id, now - TEST_NOTIFICATION_WINDOW_MS);
    if (recent.length >= TEST_NOTIFICATION_LIMIT) {
      const waitMs = recent[0] + TEST_NOTIFICATION_WINDOW_MS - now;
      const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
      tooManyRequests(PUSH_MESSAGES.testRateLimited(minutes), Math.ceil(waitMs / 1000));
    }
    await insertTestSend(deps.db, actor.id, now);
  });
  const rows = await listActiveSubscriptions(deps.db, { userIds: [actor.id] });
  return { sent: await deliver(deps, rows, testPush(), { ttlSeconds: 60, urgency: 'normal' }) };
}

/*
 * Payloads (decision 36): what the notification shows and ids, never the content of a message or post, so a
 * locked phone shows no resident or health details.
 */

export function chatPush(senderFirstName: string, conversationId: string): PushPayload {
  return {
    title: `New message from ${senderFirstName}`,
    body: 'Open Staff Portal to read it.',
    tag: `chat-${conversationId}`,
    data: { type: 'chat', conversationId },
  };
}

export function urgentPush(authorFirstName: string, postId: string): PushPayload {
  return {
    title: 'Emergency alert',
    body: `New urgent message from ${authorFirstName}. Open Staff Portal to read and acknowledge it.`,
    tag: `urgent-${postId}`,
    data: { type: 'urgent', postId, urgent: true },
  };
}

export function reminderPush(authorFirstName: string, postId: string): PushPayload {
  return {
    title: 'Emergency alert not acknowledged',
    body: `Please open Staff Portal and acknowledge the urgent message from ${authorFirstName}.`,
    tag: `urgent-${postId}`,
    data: { type: 'reminder', postId, urgent: true },
  };
}

/** A post the user has still to confirm as read is due (decision 136); no content, as every push (decision 36). */
export function confirmReminderPush(authorFirstName: string, postId: string): PushPayload {
  return {
    title: 'Please confirm you have read a post',
    body: `A post from ${authorFirstName} asks you to confirm you have read it. Open Staff Portal to read and confirm.`,
    tag: `confirm-${postId}`,
    data: { type: 'confirm_reminder', postId },
  };
}

export function announcementPush(authorFirstName: string, postId: string): PushPayload {
  return {
    title: 'Company announcement',
    body: `New announcement from ${authorFirstName}.`,
    tag: `announcement-${postId}`,
    data: { type: 'announcement', postId },
  };
}

/** Someone mentioned the user in a post or comment (decision 144): who, and the post to open; never the text. */
export function mentionPush(authorFirstName: string, postId: string, commentId: string | null): PushPayload {
  return {
    title: 'You were mentioned',
    body: `${authorFirstName} mentioned you${commentId ? ' in a comment' : ''}. Open Staff Portal to read it.`,
    tag: `mention-${commentId ?? postId}`,
    data: { type: 'mention', postId },
  };
}

const plural = (count: number, word: string) => `${count} more new ${word}${count === 1 ? '' : 's'}`;

/** The summary push a burst's `SummaryOf` says, for this many held pushes. */
export function summaryPush(summary: SummaryOf, heldCount: number): PushPayload {
  switch (summary.kind) {
    case 'announcements':
      return announcementsSummaryPush(summary.authorFirstName, heldCount);
    case 'chat':
      return chatSummaryPush(summary.senderFirstName, summary.conversationId, heldCount);
    case 'mentions':
      return mentionsSummaryPush(summary.authorFirstName, heldCount);
  }
}

/** Stands for the announcements held back from one author (decision 125); opens the feed. */
export function announcementsSummaryPush(authorFirstName: string, heldCount: number): PushPayload {
  return {
    title: 'Company announcements',
    body: `${plural(heldCount, 'announcement')} from ${authorFirstName}.`,
    tag: 'announcements',
    data: { type: 'announcement' },
  };
}

/** Stands for the chat messages held back in one conversation; replaces its last message's notification. */
export function chatSummaryPush(senderFirstName: string, conversationId: string, heldCount: number): PushPayload {
  return {
    title: `New messages from ${senderFirstName}`,
    body: `${plural(heldCount, 'message')}. Open Staff Portal to read them.`,
    tag: `chat-${conversationId}`,
    data: { type: 'chat', conversationId },
  };
}

/** Someone mentioned the user in a chat message (decision 150): who, and the conversation to open; never the text. */
export function messageMentionPush(senderFirstName: string, conversationId: string): PushPayload {
  return {
    title: 'You were mentioned',
    body: `${senderFirstName} mentioned you in a message. Open Staff Portal to read it.`,
    tag: `mention-chat-${conversationId}`,
    data: { type: 'mention', conversationId },
  };
}

/** Stands for the mentions held back from one author (decision 125); opens the feed. */
export function mentionsSummaryPush(authorFirstName: string, heldCount: number): PushPayload {
  return {
    title: 'You were mentioned',
    body: `${authorFirstName} mentioned you ${heldCount} more time${heldCount === 1 ? '' : 's'}. Open Staff Portal to read them.`,
    tag: 'mentions',
    data: { type: 'mention' },
  };
}

export function testPush(): PushPayload {
  return {
    title: 'Staff Portal',
    body: 'Push notifications are working on this device.',
    tag: 'test',
    data: { type: 'test' },
  };
}

/** Delivery options: alerts and chat go at once and keep a day; announcements and mentions are normal priority. */
export const PUSH_OPTIONS = {
  urgent: { ttlSeconds: DAY_SECONDS, urgency: 'high' },
  chat: { ttlSeconds: DAY_SECONDS, urgency: 'high' },
  announcement: { ttlSeconds: 3 * DAY_SECONDS, urgency: 'normal' },
  mention: { ttlSeconds: DAY_SECONDS, urgency: 'normal' },
} as const satisfies Record<string, PushOptions>;

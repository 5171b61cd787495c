import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { vi } from 'vitest';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { filter, firstValueFrom } from 'rxjs';
// The chaos run drives real devices against the real servers in their own processes (docs/sync.md, "Sync chaos").
import { closeDb, statement, type Db } from '../../../server/db/client';
import { insertUser } from '../../../server/features/users/users.queries';
import { hashPassword } from '../../../server/lib/crypto';
import { lockedPid } from '../../../server/test/server-process';
import { TEST_PASSWORD, TestClient } from '../../../server/test/test-server';
import { conversationIdOf } from '../../../schema/chat';
import { POST_CATEGORIES, REACTION_TYPES, type PostCategory } from '../../../schema/posts';
import { reactionId, type SyncCollection } from '../../../schema/sync';
import { acknowledgeAlert } from '../../features/alerts/use-alerts';
import { markConversationRead, openConversation, sendMessage } from '../../features/chat/chat-actions';
import {
  addComment,
  deleteComment,
  deletePost,
  editPost,
  toggleReaction,
  type ShownPost,
} from '../../features/feed/feed-actions';
import { buildPostDoc } from '../../features/feed/post-draft';
import { withTimeout } from '../../lib/with-timeout';
import { createSyncedDatabase, type UserDatabase } from '../database';
import { startSync } from '../replication';
import type { ChaosUser, Device, Ledger } from './ledger';
import { BACKEND_HEADER } from './proxy';
import { uuids, type OpKind, type Step } from './script';
import type { Backend, ChaosServers } from './servers';

/** The six collections the operations touch: two open devices use twelve of RxDB's thirteen (STACK-NOTES). */
export const COLLECTIONS = ['posts', 'comments', 'reactions', 'conversations', 'messages', 'acknowledgements'] as const;
export type Collection = (typeof COLLECTIONS)[number];
/** At most this many devices have their database open at once (6 collections each). */
export const MAX_OPEN = 2;
const env = { indexedDB, IDBKeyRange, multiInstance: false };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with the promise's value, or rejects after `ms` naming what never finished: a step or a settle
 * phase that hangs is reported with the seed and the steps before it, instead of the whole test timing out.
 */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  return withTimeout(promise, ms, () => {
    throw new Error(`${what}: still not finished after ${ms / 1000} s`);
  });
}

/** The entry of `list` a random number in [0, 1) picks. */
const pick = <T>(list: readonly T[], r: number): T | undefined => list[Math.floor(r * list.length)];

/** What one step acts with: its number, its random numbers, the device it picked (and its index), its log tag. */
interface StepAt {
  index: number;
  r: Step['r'];
  device: Device;
  me: number;
  db: UserDatabase;
  tag: string;
}

/** Notes each id of `expected` missing from `actual`, and each one there not expected, in `problems`. */
const expectSameIn = (problems: string[]) => (what: string, expected: Set<string>, actual: Set<string>) => {
  for (const id of expected) if (!actual.has(id)) problems.push(`${what} ${id}: missing on the server`);
  for (const id of actual) if (!expected.has(id)) problems.push(`${what} ${id}: on the server, not expected`);
};

/** Strips what only the local store has. */
function wire(doc: Record<string, unknown>): Record<string, unknown> {
  const { localPending, _deleted, ...rest } = doc;
  void localPending;
  void _deleted;
  return rest;
}

/** The three users, written straight into the servers' database, as accounts made earlier would be. */
export async function insertChaosUsers(db: Db): Promise<ChaosUser[]> {
  const passwordHash = await hashPassword(TEST_PASSWORD);
  const users: ChaosUser[] = (['admin', 'staff', 'staff'] as const).map((role, i) => ({
    id: randomUUID(),
    email: `chaos-${i}@test.example`,
    role,
  }));
  for (const [i, user] of users.entries()) {
    const now = Date.now();
    await insertUser(db, {
      ...user,
      passwordHash,
      firstName: ['Ada', 'Ben', 'Cat'][i],
      lastName: 'Chaos',
      isActive: true,
      pendingApproval: false,
      createdAt: now,
      updatedAt: now,
    });
  }
  return users;
}

/**
 * One chaos run: the servers in their own processes (one, or two behind a proxy), three devices, the ledger of what
 * they wrote, and the checks.
 */
export class ChaosRun {
  readonly log: string[] = [];
  readonly anomalies: string[] = [];
  readonly warnings: string[] = [];
  readonly counts = new Map<string, number>();
  readonly traffic = new Map<string, string[]>();
  readonly ids: () => string;
  readonly ledger: Ledger = {
    posts: new Map(),
    comments: new Map(),
    reactions: new Map(),
    conversations: new Set(),
    messages: new Map(),
    acknowledged: new Set(),
    order: new Map(),
  };
  devices: Device[] = [];
  private serial = 0;
  /** How many server restarts have begun: with two servers the first takes one by the seed, the second the other. */
  private restarts = 0;

  constructor(
    readonly servers: ChaosServers,
    readonly seed: number,
    /** Ids whose every request and answer go to the step log as they happen (CHAOS_TRACE). */
    readonly traceIds?: string,
  ) {
    this.ids = uuids(seed);
  }

  /** Where the devices send everything: the server, or the proxy in front of two. */
  get url(): string {
    return this.servers.url;
  }

  note(step: number, text: string) {
    this.log.push(`#${step} ${text}`);
  }

  remember(id: string) {
    this.ledger.order.set(id, (this.serial += 1));
  }

  /** Runs `read` on the servers' database, opened for it and closed after. */
  private async onServerDb<T>(read: (db: Db) => Promise<T>): Promise<T> {
    const db = await this.servers.openDb();
    try {
      return await read(db);
    } finally {
      await closeDb(db);
    }
  }

  /** The three users exist before the servers first start, as accounts made earlier would. */
  seedUsers(): Promise<ChaosUser[]> {
    return this.onServerDb(insertChaosUsers);
  }

  async startServers() {
    await this.servers.startAll();
  }

  async signIn(users: ChaosUser[]) {
    this.devices = [];
    for (const [i, user] of users.entries()) {
      const client = new TestClient(this.url);
      const res = await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
      this.devices.push({
        name: 'ABC'[i],
        user,
        cookie: client.cookie,
        dbName: `sp_chaos_${i}_${randomUUID().replace(/-/g, '')}`,
        db: null,
        sync: null,
        online: true,
        cut: new AbortController(),
        loseAnswers: 0,
        streamOn: null,
        pushedTo: null,
      });
    }
  }

  /** The device's fetch: throws TypeError offline, drops the connection on going offline, loses answers. */
  fetchOf(device: Device): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!device.online) throw new TypeError('Failed to fetch (offline)');
      const url = String(input);
      const cut = device.cut.signal;
      const headers = new Headers(init?.headers);
      headers.set('cookie', device.cookie);
      const signal = init?.signal ? AbortSignal.any([init.signal, cut]) : cut;
      const dropped = (error: unknown) => {
        if (cut.aborted) return new TypeError('Failed to fetch (connection dropped)');
        return error;
      };
      let response: Response;
      try {
        response = await fetch(input, { ...init, headers, signal });
      } catch (error) {
        throw dropped(error);
      }
      const backend = response.headers.get(BACKEND_HEADER);
      const served = backend === null ? null : Number(backend);
      if (url.includes('/api/sync/stream')) {
        if (response.ok) device.streamOn = served;
        return response;
      }
      if (url.includes('/push') && response.ok) device.pushedTo = served;
      let body: ArrayBuffer;
      try {
        body = await response.arrayBuffer();
      } catch (error) {
        throw dropped(error);
      }
      this.trace(device, url, init?.body, body);
      if (url.includes('/push') && device.loseAnswers > 0) {
        device.loseAnswers -= 1;
        throw new TypeError('Failed to fetch (answer lost)');
      }
      return new Response(body, { status: response.status, headers: response.headers });
    }) as typeof fetch;
  }

  /**
   * Every push row and pulled document, by document id, so a failure can show what travelled for the documents
   * it names; with CHAOS_TRACE=<id prefix> those also go to the step log as they happen.
   */
  trace(device: Device, url: string, sent: unknown, answer: ArrayBuffer) {
    const path = url.replace(this.url, '').split('?')[0];
    const note = (id: string, text: string) => {
      const line = `${new Date().toISOString().slice(17, 23)} ${device.name} ${path} ${text}`;
      const lines = this.traffic.get(id) ?? [];
      lines.push(line);
      this.traffic.set(id, lines);
      if (this.traceIds && id.startsWith(this.traceIds)) this.log.push(`  [trace] ${line}`);
    };
    const rows = typeof sent === 'string' ? (JSON.parse(sent) as Record<string, Record<string, unknown>>[]) : [];
    for (const row of rows) note(String(row.newDocumentState.id), JSON.stringify(row));
    const text = new TextDecoder().decode(answer);
    if (!text.startsWith('{')) return;
    const parsed = JSON.parse(text) as { documents?: Record<string, unknown>[]; conflicts?: Record<string, unknown>[] };
    for (const doc of parsed.documents ?? []) note(String(doc.id), `answered ${JSON.stringify(doc)}`);
    for (const doc of parsed.conflicts ?? []) note(String(doc.id), `conflict ${JSON.stringify(doc)}`);
  }

  /** What travelled for the first documents a list of problems names, and the steps that name them. */
  history(problems: string[]): string[] {
    const ids = [...new Set(problems.flatMap((p) => p.match(/[0-9a-f]{8}-[0-9a-f-]{27}(:[0-9a-f-]{36})?/g) ?? []))];
    return ids
      .slice(0, 3)
      .flatMap((id) => [
        `${id}:`,
        ...this.log.filter((l) => l.includes(id.slice(0, 8))).map((l) => `  ${l}`),
        ...(this.traffic.get(id) ?? []).slice(-30).map((l) => `  ${l.slice(0, 400)}`),
      ]);
  }

  isOpen(device: Device) {
    return device.db !== null;
  }

  async open(device: Device) {
    device.db = await createSyncedDatabase(device.dbName, env, COLLECTIONS);
    device.sync = startSync(device.db as unknown as Record<SyncCollection, never>, {
      baseUrl: this.url,
      fetch: this.fetchOf(device),
      retryMs: 150,
      // A request that hangs is given up well within a settle phase; each one shows in the warnings.
      requestTimeoutMs: 8000,
    });
  }

  async close(device: Device) {
    await within(30_000, `${device.name} stopping its sync`, device.sync?.stop() ?? Promise.resolve());
    await within(30_000, `${device.name} closing its database`, device.db?.close() ?? Promise.resolve(false));
    device.sync = null;
    device.db = null;
  }

  setOnline(device: Device, online: boolean) {
    if (device.online === online) return;
    device.online = online;
    if (!online) device.cut.abort();
    else {
      device.cut = new AbortController();
      // What the app does on the browser's 'online' event.
      device.sync?.resync();
    }
  }

  count(kind: string) {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  /** Documents of a collection live on the device, in the order the ledger made them (not by id). */
  async live(device: Device, collection: Collection): Promise<Record<string, unknown>[]> {
    const docs = await device.db![collection].find().exec();
    return docs
      .map((d) => d.toJSON() as unknown as Record<string, unknown>)
      .sort((a, b) => (this.ledger.order.get(a.id as string) ?? 0) - (this.ledger.order.get(b.id as string) ?? 0));
  }

  /** Runs one step of the script on whichever device it picks among the open ones. */
  async run(index: number, step: Step) {
    const open = this.devices.filter((d) => this.isOpen(d));
    // The first step is the administrator's urgent post.
    const device = index === 0 ? this.devices[0] : pick(open, step.r[0])!;
    const tag = `${device.name}${device.online ? '' : '(off)'}`;
    const at: StepAt = { index, r: step.r, device, me: this.devices.indexOf(device), db: device.db!, tag };
    // A step that finds nothing to act on is noted, not counted.
    if (await this.steps[step.kind](at)) this.count(step.kind);
  }

  /** Notes that a step found nothing to act on. */
  private skip(index: number, text: string): false {
    this.note(index, text);
    return false;
  }

  /** Each kind of step; each answers whether it acted. */
  private readonly steps: Record<OpKind, (at: StepAt) => Promise<boolean>> = {
    serverStop: (at) => this.serverStop(at),
    serverKill: (at) => this.serverKill(at),
    serverStart: (at) => this.serverStart(at),
    createPost: (at) => this.createPost(at),
    editPost: (at) => this.editPost(at),
    deletePost: (at) => this.deletePost(at),
    addComment: (at) => this.addComment(at),
    deleteComment: (at) => this.deleteComment(at),
    toggleReaction: (at) => this.toggleReaction(at),
    sendMessage: (at) => this.sendMessage(at),
    markRead: (at) => this.markRead(at),
    acknowledge: (at) => this.acknowledge(at),
    network: (at) => this.network(at),
    loseAnswer: (at) => this.loseAnswer(at),
    rotate: (at) => this.rotate(at),
    pause: (at) => this.pause(at),
  };

  /**
   * The server a stop or a kill takes down: the only one, or with two the one the seed picks first and the other
   * next, so each of them restarts once while the devices' streams on it move through the proxy to the other.
   */
  private nextToGo(): Backend {
    const { backends } = this.servers;
    const backend = backends[(this.seed + this.restarts) % backends.length];
    this.restarts += 1;
    return backend;
  }

  private async serverStop(at: StepAt): Promise<boolean> {
    const { index } = at;
    const backend = this.nextToGo();
    const server = backend.process!;
    try {
      await within(20_000, `a graceful stop of ${backend.name}`, server.stop());
    } catch (error) {
      this.anomalies.push((error as Error).message);
      await server.kill();
    }
    backend.process = null;
    // A graceful close removes its lock.
    if (lockedPid(backend.dataDir) !== null)
      this.anomalies.push(`${backend.name}'s lock file stayed after a graceful stop`);
    this.note(index, `${backend.name} stopped gracefully (pid ${server.pid})`);
    return true;
  }

  private async serverKill(at: StepAt): Promise<boolean> {
    const { index } = at;
    const backend = this.nextToGo();
    const server = backend.process!;
    await server.kill();
    backend.process = null;
    if (lockedPid(backend.dataDir) !== server.pid) {
      this.anomalies.push(`a SIGKILL of ${backend.name} should leave the stale lock behind`);
    }
    this.note(index, `${backend.name} SIGKILLed (pid ${server.pid})`);
    return true;
  }

  private async serverStart(at: StepAt): Promise<boolean> {
    const { index } = at;
    const backend = this.servers.backends.find((b) => b.process === null)!;
    const stale = lockedPid(backend.dataDir);
    await this.servers.start(backend);
    // The lock of a killed server is taken over, not refused.
    if (lockedPid(backend.dataDir) !== backend.process!.pid) {
      this.anomalies.push(`the new ${backend.name} did not take the lock`);
    }
    this.note(index, `${backend.name} started (pid ${backend.process!.pid}, stale lock ${stale ?? 'none'})`);
    return true;
  }

  private async createPost(at: StepAt): Promise<boolean> {
    const { index, device, me, db, tag } = at;
    const [, r1, r2] = at.r;
    const id = this.ids();
    const isAdmin = device.user.role === 'admin';
    const isUrgent = index === 0 || (isAdmin && r1 < 0.4);
    const category: PostCategory = index === 0 ? 'company_announcement' : pick(POST_CATEGORIES, r2)!;
    const content = `post ${index} by ${device.name}`;
    const doc = buildPostDoc(id, device.user.id, { content, category, isUrgent, houseTags: [] }, []);
    await db.posts.insert(doc);
    this.remember(id);
    this.ledger.posts.set(id, { author: me, content, category, isUrgent, deleted: false });
    this.note(index, `${tag} creates ${isUrgent ? 'urgent ' : ''}post ${id.slice(0, 8)}`);
    return true;
  }

  private async editPost(at: StepAt): Promise<boolean> {
    const { index, device, me, db, tag } = at;
    const [, r1, r2] = at.r;
    // Authors edit their words; the administrator also moves others' posts to another category. Each field
    // has one writer, so the ledger knows the outcome; concurrent edits of one post merge field by field.
    const posts = (await this.live(device, 'posts')).filter(
      (p) => p.authorId === device.user.id || device.user.role === 'admin',
    );
    const post = pick(posts, r1);
    if (!post) return this.skip(index, `${tag} has no post to edit`);
    const id = post.id as string;
    const entry = this.ledger.posts.get(id)!;
    const own = entry.author === me;
    if (own) {
      const content = `edit ${index} by ${device.name}`;
      const category = device.user.role === 'admin' ? pick(POST_CATEGORIES, r2)! : undefined;
      await editPost(db, id, { content, category, isUrgent: post.isUrgent as boolean }, post as unknown as ShownPost);
      entry.content = content;
      if (category) entry.category = category;
      this.note(index, `${tag} edits own post ${id.slice(0, 8)}${category ? ` (${category})` : ''}`);
    } else {
      const category = pick(POST_CATEGORIES, r2)!;
      // As the edit form does: what was shown and left as it was is not written back.
      await editPost(
        db,
        id,
        { content: post.content as string, category, isUrgent: post.isUrgent as boolean },
        post as unknown as ShownPost,
      );
      entry.category = category;
      this.note(index, `${tag} moves post ${id.slice(0, 8)} to ${category}`);
    }
    return true;
  }

  private async deletePost(at: StepAt): Promise<boolean> {
    const { index, device, db, tag } = at;
    const [, r1, , r3] = at.r;
    const posts = (await this.live(device, 'posts')).filter(
      (p) => p.authorId === device.user.id || (device.user.role === 'admin' && r3 < 0.5),
    );
    const post = pick(posts, r1);
    if (!post) return this.skip(index, `${tag} has no post to delete`);
    await deletePost(db, post.id as string);
    this.ledger.posts.get(post.id as string)!.deleted = true;
    this.note(index, `${tag} deletes post ${(post.id as string).slice(0, 8)}`);
    return true;
  }

  private async addComment(at: StepAt): Promise<boolean> {
    const { index, device, me, db, tag } = at;
    const [, r1] = at.r;
    const post = pick(await this.live(device, 'posts'), r1);
    if (!post) return this.skip(index, `${tag} has no post to comment on`);
    const id = this.ids();
    const content = `comment ${index} by ${device.name}`;
    // The app's own action, with this run's id.
    const spy = vi.spyOn(crypto, 'randomUUID').mockReturnValueOnce(id as ReturnType<typeof crypto.randomUUID>);
    try {
      await addComment(db, post.id as string, device.user.id, content);
    } finally {
      spy.mockRestore();
    }
    this.remember(id);
    this.ledger.comments.set(id, { author: me, postId: post.id as string, content, deleted: false });
    this.note(index, `${tag} comments ${id.slice(0, 8)} on ${(post.id as string).slice(0, 8)}`);
    return true;
  }

  private async deleteComment(at: StepAt): Promise<boolean> {
    const { index, device, db, tag } = at;
    const [, r1] = at.r;
    const mine = (await this.live(device, 'comments')).filter((c) => c.authorId === device.user.id);
    const comment = pick(mine, r1);
    if (!comment) return this.skip(index, `${tag} has no comment to delete`);
    await deleteComment(db, comment.id as string);
    this.ledger.comments.get(comment.id as string)!.deleted = true;
    this.note(index, `${tag} deletes comment ${(comment.id as string).slice(0, 8)}`);
    return true;
  }

  private async toggleReaction(at: StepAt): Promise<boolean> {
    const { index, device, me, db, tag } = at;
    const [, r1, r2] = at.r;
    const post = pick(await this.live(device, 'posts'), r1);
    if (!post) return this.skip(index, `${tag} has no post to react to`);
    const postId = post.id as string;
    const id = reactionId(postId, device.user.id);
    const type = pick(REACTION_TYPES, r2)!;
    const current = (await db.reactions.findOne(id).exec())?.toJSON();
    const before = this.ledger.reactions.get(id)?.type ?? null;
    // Only this user writes this document: the device must still show what it last chose, unless the
    // post went away (its reactions go with it).
    if ((current?.type ?? null) !== before && !this.ledger.posts.get(postId)!.deleted) {
      this.anomalies.push(
        `#${index} ${device.name}'s own reaction ${id} reads ${current?.type ?? 'none'}, it chose ${before ?? 'none'}`,
      );
    }
    await toggleReaction(db, postId, device.user.id, type, current as never);
    const after = current && current.type === type ? null : type;
    this.remember(id);
    this.ledger.reactions.set(id, { user: me, postId, type: after });
    this.note(index, `${tag} reacts ${after ?? `(removes ${type})`} on ${postId.slice(0, 8)}`);
    return true;
  }

  private async sendMessage(at: StepAt): Promise<boolean> {
    const { index, device, me, db, tag } = at;
    const [, r1, r2] = at.r;
    const others = this.devices.filter((d) => d !== device);
    const other = pick(others, r1)!;
    const conversationId = conversationIdOf(device.user.id, other.user.id);
    // Mostly through the chat screen (open, then send); sometimes a message before its conversation.
    if (r2 < 0.7) await openConversation(db, device.user.id, other.user.id);
    let id = this.ids();
    const content = `message ${index} ${device.name}>${other.name}`;
    const spy = vi.spyOn(crypto, 'randomUUID').mockReturnValueOnce(id as ReturnType<typeof crypto.randomUUID>);
    let sent: { id: string } | null;
    try {
      sent = await sendMessage(db, device.user.id, conversationId, content);
    } finally {
      spy.mockRestore();
    }
    // Its id, even if something else took the seeded one meanwhile.
    id = sent!.id;
    this.remember(id);
    this.ledger.conversations.add(conversationId);
    this.ledger.messages.set(id, { sender: me, conversationId, content });
    this.note(index, `${tag} messages ${other.name} (${id.slice(0, 8)})`);
    return true;
  }

  private async markRead(at: StepAt): Promise<boolean> {
    const { index, device, db, tag } = at;
    const [, r1] = at.r;
    const conversations = await this.live(device, 'conversations');
    const conversation = pick(conversations, r1);
    if (!conversation) return this.skip(index, `${tag} has no conversation to read`);
    const newest = await db.messages
      .findOne({
        selector: { conversationId: conversation.id as string, senderId: { $ne: device.user.id } },
        sort: [{ createdAt: 'desc' }],
      })
      .exec();
    if (!newest) return this.skip(index, `${tag} has nothing to read`);
    await markConversationRead(db, conversation.id as string, newest.createdAt);
    this.note(index, `${tag} reads up to ${newest.createdAt}`);
    return true;
  }

  private async acknowledge(at: StepAt): Promise<boolean> {
    const { index, device, db, tag } = at;
    const [, r1] = at.r;
    const posts = new Map((await this.live(device, 'posts')).map((p) => [p.id, p]));
    const waiting = (await this.live(device, 'acknowledgements')).filter(
      (a) => a.userId === device.user.id && a.acknowledgedAt === null && Boolean(posts.get(a.postId)?.isUrgent),
    );
    const ack = pick(waiting, r1);
    if (!ack) return this.skip(index, `${tag} has no alert to acknowledge`);
    await acknowledgeAlert(db, ack.id as string);
    this.ledger.acknowledged.add(ack.id as string);
    this.note(index, `${tag} acknowledges ${(ack.id as string).slice(0, 8)}`);
    return true;
  }

  private async network(at: StepAt): Promise<boolean> {
    const { index } = at;
    const [, r1] = at.r;
    const target = pick(this.devices, r1)!;
    this.setOnline(target, !target.online);
    this.note(index, `${target.name} goes ${target.online ? 'online' : 'offline'}`);
    return true;
  }

  private async loseAnswer(at: StepAt): Promise<boolean> {
    const { index, device } = at;
    device.loseAnswers += 1;
    this.note(index, `${device.name} will lose its next push answer`);
    return true;
  }

  private async rotate(at: StepAt): Promise<boolean> {
    const { index, device } = at;
    // The app closes on one phone and opens on the one that was closed.
    const closed = this.devices.find((d) => !this.isOpen(d));
    if (!closed) return false;
    await this.close(device);
    await this.open(closed);
    this.note(index, `${device.name} closes the app, ${closed.name} opens it`);
    return true;
  }

  private async pause(at: StepAt): Promise<boolean> {
    const { index } = at;
    const [, r1] = at.r;
    await sleep(200 + Math.floor(r1 * 600));
    this.note(index, 'pause');
    return true;
  }

  /** Every page of a collection as this user pulls it from the server (tombstones included). */
  async serverView(device: Device, collection: Collection): Promise<Map<string, Record<string, unknown>>> {
    const docs = new Map<string, Record<string, unknown>>();
    let seq = 0;
    let id = '';
    for (;;) {
      const res = await fetch(
        `${this.url}/api/sync/${collection}/pull?seq=${seq}&id=${encodeURIComponent(id)}&limit=1000`,
        {
          headers: { cookie: device.cookie, 'X-Background': '1' },
        },
      );
      if (!res.ok) throw new Error(`pull ${collection} as ${device.name}: ${res.status}`);
      const page = (await res.json()) as {
        documents: Record<string, unknown>[];
        checkpoint: { seq: number; id: string };
      };
      for (const doc of page.documents) docs.set(doc.id as string, doc);
      if (page.documents.length < 1000) return docs;
      ({ seq, id } = page.checkpoint);
    }
  }

  /** Differences between a device's live documents and what the server lets its user pull. */
  async diffDevice(device: Device): Promise<string[]> {
    const problems: string[] = [];
    for (const collection of COLLECTIONS) {
      const server = await this.serverView(device, collection);
      const serverLive = new Map([...server].filter(([, doc]) => !doc._deleted));
      const local = await device.db![collection].find().exec();
      const localIds = new Set<string>();
      for (const doc of local) {
        const data = doc.toJSON() as unknown as Record<string, unknown>;
        localIds.add(data.id as string);
        if (data.localPending) problems.push(`${device.name} ${collection} ${data.id}: still pending`);
        const master = serverLive.get(data.id as string);
        if (!master) {
          problems.push(`${device.name} ${collection} ${data.id}: on the device, not live on the server`);
          continue;
        }
        const mine = wire(data);
        const theirs = Object.fromEntries(Object.keys(mine).map((k) => [k, master[k]]));
        if (!isDeepStrictEqual(mine, theirs)) {
          const fields = Object.keys(mine).filter((k) => !isDeepStrictEqual(mine[k], theirs[k]));
          const shown = fields.map((k) => `${k}: ${JSON.stringify(mine[k])} vs ${JSON.stringify(theirs[k])}`);
          problems.push(`${device.name} ${collection} ${data.id}: ${shown.join(', ')} (device vs server)`);
        }
      }
      for (const id of serverLive.keys()) {
        if (!localIds.has(id))
          problems.push(`${device.name} ${collection} ${id}: live on the server, missing on the device`);
      }
    }
    return problems;
  }

  /** The ledger against the server: everything meant to be there is, nothing else, nothing twice. */
  async diffLedger(): Promise<string[]> {
    const problems: string[] = [];
    const posts = await this.diffPosts(problems);
    await this.diffComments(problems);
    await this.diffReactions(problems, posts);
    for (const device of this.devices) {
      await this.diffConversations(problems, device);
      await this.diffAlerts(problems, device);
    }
    await this.diffStoredRows(problems);
    return problems;
  }

  /** A user's live documents of a collection on the server. */
  private async liveOnServer(device: Device, collection: Collection) {
    return new Map([...(await this.serverView(device, collection))].filter(([, doc]) => !doc._deleted));
  }

  /** Whether the ledger keeps this post live. */
  private postLive(id: string): boolean {
    return this.ledger.posts.get(id)?.deleted === false;
  }

  /** The live posts: those the ledger keeps, with their content, category, urgency and author. */
  private async diffPosts(problems: string[]) {
    const { ledger, devices } = this;
    const expectSame = expectSameIn(problems);
    const admin = devices[0];
    const posts = await this.liveOnServer(admin, 'posts');
    expectSame(
      'post',
      new Set([...ledger.posts].filter(([, p]) => !p.deleted).map(([id]) => id)),
      new Set(posts.keys()),
    );
    for (const [id, doc] of posts) {
      const want = ledger.posts.get(id);
      if (!want) continue;
      const expected = {
        content: want.content,
        category: want.category,
        isUrgent: want.isUrgent,
        authorId: devices[want.author].user.id,
      };
      const actual = { content: doc.content, category: doc.category, isUrgent: doc.isUrgent, authorId: doc.authorId };
      if (!isDeepStrictEqual(expected, actual)) {
        problems.push(`post ${id}: expected ${JSON.stringify(expected)}, server ${JSON.stringify(actual)}`);
      }
    }

    return posts;
  }

  /** The live comments: those the ledger keeps on live posts, as their authors wrote them. */
  private async diffComments(problems: string[]) {
    const { ledger, devices } = this;
    const expectSame = expectSameIn(problems);
    const admin = devices[0];
    const comments = await this.liveOnServer(admin, 'comments');
    const wantComments = [...ledger.comments].filter(([, c]) => !c.deleted && this.postLive(c.postId));
    expectSame('comment', new Set(wantComments.map(([id]) => id)), new Set(comments.keys()));
    for (const [id, c] of wantComments) {
      const doc = comments.get(id);
      if (doc && (doc.content !== c.content || doc.postId !== c.postId || doc.authorId !== devices[c.author].user.id)) {
        problems.push(`comment ${id}: ${JSON.stringify(doc)} is not what ${devices[c.author].name} wrote`);
      }
    }
  }

  /** Each user's reaction documents, and everyone's reactions as the posts carry them. */
  private async diffReactions(problems: string[], posts: Map<string, Record<string, unknown>>) {
    const { ledger, devices } = this;
    const expectSame = expectSameIn(problems);
    // Each user pulls only their own reaction documents; everyone's are on the posts (decision 74).
    const reactions = new Map<string, Record<string, unknown>>();
    for (const device of devices)
      for (const [id, doc] of await this.liveOnServer(device, 'reactions')) reactions.set(id, doc);
    const wantReactions = [...ledger.reactions].filter(([, r]) => r.type !== null && this.postLive(r.postId));
    expectSame('reaction', new Set(wantReactions.map(([id]) => id)), new Set(reactions.keys()));
    for (const [id, r] of wantReactions) {
      const doc = reactions.get(id);
      if (doc && doc.type !== r.type)
        problems.push(`reaction ${id}: ${doc.type}, ${devices[r.user].name} chose ${r.type}`);
    }
    for (const [postId, doc] of posts) {
      const want: Record<string, string[]> = {};
      for (const [, r] of wantReactions) {
        if (r.postId === postId) (want[r.type!] ??= []).push(devices[r.user].user.id);
      }
      const got = Object.fromEntries(
        Object.entries((doc.reactions ?? {}) as Record<string, string[]>).map(([type, ids]) => [type, [...ids].sort()]),
      );
      Object.values(want).forEach((ids) => ids.sort());
      if (!isDeepStrictEqual(want, got)) {
        problems.push(`post ${postId} reactions: server ${JSON.stringify(got)}, chosen ${JSON.stringify(want)}`);
      }
    }
  }

  /** A user's conversations, and their messages: once each, at distinct times, each sender's in order. */
  private async diffConversations(problems: string[], device: Device) {
    const { ledger, devices } = this;
    const expectSame = expectSameIn(problems);
    const mineConv = [...ledger.conversations].filter((id) => id.split(':').includes(device.user.id));
    expectSame(
      `${device.name} conversation`,
      new Set(mineConv),
      new Set((await this.liveOnServer(device, 'conversations')).keys()),
    );

    const messages = await this.liveOnServer(device, 'messages');
    const wantMessages = [...ledger.messages].filter(([, m]) => mineConv.includes(m.conversationId));
    expectSame(`${device.name} message`, new Set(wantMessages.map(([id]) => id)), new Set(messages.keys()));
    for (const conversationId of mineConv) {
      const stored = [...messages.values()]
        .filter((m) => m.conversationId === conversationId)
        .sort((a, b) => (a.createdAt as number) - (b.createdAt as number));
      for (let i = 1; i < stored.length; i += 1) {
        if (stored[i].createdAt === stored[i - 1].createdAt) {
          problems.push(`${device.name} messages ${stored[i - 1].id} and ${stored[i].id} share one time`);
        }
      }
      // Each sender's messages arrive in the order they were written.
      for (const sender of devices) {
        const written = wantMessages
          .filter(([, m]) => m.conversationId === conversationId && devices[m.sender] === sender)
          .map(([id]) => id);
        const shown = stored.filter((m) => m.senderId === sender.user.id).map((m) => m.id as string);
        if (!isDeepStrictEqual(written, shown)) {
          problems.push(`${device.name} sees ${sender.name}'s messages out of order in ${conversationId}`);
        }
      }
    }
  }

  /** A user's alerts: one per live urgent post of someone else, acknowledged exactly when they did. */
  private async diffAlerts(problems: string[], device: Device) {
    const { ledger, devices } = this;
    // Alerts: one per live urgent post of someone else, acknowledged exactly when this user did. An alert
    // of a deleted post stays only once acknowledged (whether the delete or the acknowledgement came first
    // depends on timing).
    const acks = await this.liveOnServer(device, 'acknowledgements');
    const me = devices.indexOf(device);
    const wantAcks = [...ledger.posts]
      .filter(([, p]) => !p.deleted && p.isUrgent && p.author !== me)
      .map(([postId]) => `${postId}:${device.user.id}`);
    for (const id of wantAcks) {
      const doc = acks.get(id);
      if (!doc) problems.push(`${device.name} alert ${id}: missing on the server`);
      else if ((doc.acknowledgedAt !== null) !== ledger.acknowledged.has(id)) {
        problems.push(
          `${device.name} alert ${id}: acknowledgedAt ${doc.acknowledgedAt}, acknowledged: ${ledger.acknowledged.has(id)}`,
        );
      }
    }
    for (const [id, doc] of acks) {
      if (wantAcks.includes(id)) continue;
      if (doc.acknowledgedAt === null || !ledger.acknowledged.has(id)) {
        problems.push(`${device.name} alert ${id}: on the server, not expected`);
      }
    }
  }

  /** Nothing twice, nothing unknown: the stored rows against the ledger. */
  private async diffStoredRows(problems: string[]) {
    const { ledger } = this;
    // Nothing twice: every stored row is one the ledger made, and no content was stored under two ids.
    const tables: [string, Map<string, unknown>][] = [
      ['posts', ledger.posts],
      ['comments', ledger.comments],
      ['messages', ledger.messages],
    ];
    await this.onServerDb(async (db) => {
      for (const [table, made] of tables) {
        const rows = await statement<[], { id: string; content: string; deleted: number }>(
          db,
          `select id, content, ${table === 'messages' ? '0' : 'deleted'} as deleted from ${table}`,
        ).all();
        for (const row of rows)
          if (!made.has(row.id)) problems.push(`${table} row ${row.id}: not written by any device`);
        const contents = rows.filter((r) => !r.deleted).map((r) => r.content);
        const twice = contents.filter((c, i) => contents.indexOf(c) !== i);
        for (const c of twice) problems.push(`${table}: "${c}" stored twice`);
      }
    });
  }

  /** The servers' change counter: the check phase must not change anything. */
  serverSeq(): Promise<number> {
    return this.onServerDb(async (db) => {
      const row = await statement<[], { v: number }>(db, 'select max(seq) as v from sync_counter').get();
      return row!.v;
    });
  }

  /** Waits until the device has nothing pending and no replication is busy; answers what is still pending. */
  async flush(device: Device, timeoutMs: number): Promise<string[]> {
    this.setOnline(device, true);
    device.sync!.resync();
    const deadline = Date.now() + timeoutMs;
    const stuck: string[] = [];
    for (;;) {
      try {
        await within(Math.max(1000, deadline - Date.now()), `${device.name} awaitInSync`, device.sync!.awaitInSync());
      } catch (error) {
        stuck.push(`${(error as Error).message} (${await device.sync!.activity()})`);
        break;
      }
      const pending = await firstValueFrom(device.sync!.pending$);
      if (pending === 0) return [];
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    for (const collection of COLLECTIONS) {
      for (const doc of await device.db![collection].find({ selector: { localPending: true } }).exec()) {
        stuck.push(`${device.name} ${collection} ${doc.id}: never sent: ${JSON.stringify(wire(doc.toJSON()))}`);
      }
    }
    return stuck;
  }

  /** How many probe posts the live-delivery check has written (their words must differ). */
  private probes = 0;

  /** A post the writer makes for the live-delivery check, kept in the ledger as any other. */
  private async probe(writer: Device): Promise<string> {
    const id = this.ids();
    const content = `probe ${(this.probes += 1)} by ${writer.name}`;
    const category = POST_CATEGORIES[0];
    await writer.db!.posts.insert(
      buildPostDoc(id, writer.user.id, { content, category, isUrgent: false, houseTags: [] }, []),
    );
    this.remember(id);
    this.ledger.posts.set(id, {
      author: this.devices.indexOf(writer),
      content,
      category,
      isUrgent: false,
      deleted: false,
    });
    return id;
  }

  /** Whether the post shows on the device within `ms`, with nothing asked of its sync meanwhile. */
  private async shows(device: Device, id: string, ms: number): Promise<boolean> {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100)) {
      if (await device.db!.posts.findOne(id).exec()) return true;
    }
    return false;
  }

  /**
   * Each open device hears of the other's new post through its live stream alone, with no pull asked for. With two
   * servers the probes go on until one was pushed through the server the reader's stream is not on: only the
   * fan-out between servers (decision 158) tells that reader.
   */
  async liveDelivery(): Promise<string[]> {
    const problems: string[] = [];
    const open = this.devices.filter((d) => this.isOpen(d));
    for (const writer of open) {
      for (const reader of open.filter((d) => d !== writer)) {
        let done = false;
        for (let attempt = 0; attempt < 8 && !done; attempt += 1) done = await this.probeLive(writer, reader, problems);
        if (!done)
          problems.push(`no probe of ${writer.name} went through a server other than ${reader.name}'s stream's`);
      }
    }
    return problems;
  }

  /**
   * Turns the proxy's wheel with harmless requests, as other users' traffic would, until the next request goes to
   * another backend than `avoid` (a request of the devices slipping in between only makes for another probe).
   */
  private async steerAwayFrom(avoid: number | null, device: Device) {
    if (this.servers.backends.length === 1) return;
    for (let turns = 0; turns < 3 && this.servers.nextBackend() === avoid; turns += 1) {
      await (await fetch(`${this.url}/api/sync/posts/pull?limit=1`, { headers: { cookie: device.cookie } })).text();
    }
  }

  /** One probe of `liveDelivery`; answers whether it settled the pair (heard across servers, or not heard at all). */
  private async probeLive(writer: Device, reader: Device, problems: string[]): Promise<boolean> {
    const { backends } = this.servers;
    const on = (backend: number | null) => backends[backend ?? -1]?.name ?? 'no server';
    // A stream that connects after the post pulls everything on connecting, which would prove nothing.
    const connected = firstValueFrom(reader.sync!.connected$.pipe(filter(Boolean)));
    if (!(await within(10_000, 'connecting', connected).catch(() => false))) {
      problems.push(`${reader.name}'s live stream did not connect within 10 s (last on ${on(reader.streamOn)})`);
      return true;
    }
    // The probe's push is its next request: it should reach the server the reader's stream is not on.
    await this.steerAwayFrom(reader.streamOn, writer);
    const id = await this.probe(writer);
    problems.push(...(await this.flush(writer, 10_000)));
    const route =
      backends.length > 1 ? ` (pushed through ${on(writer.pushedTo)}, stream on ${on(reader.streamOn)})` : '';
    const heard = await this.shows(reader, id, 10_000);
    this.log.push(
      `settle: ${writer.name}'s probe ${id.slice(0, 8)} ${heard ? 'reached' : 'missed'} ${reader.name}${route}`,
    );
    if (!heard) problems.push(`${reader.name} never heard on its live stream of ${writer.name}'s post ${id}${route}`);
    return !heard || backends.length === 1 || writer.pushedTo !== reader.streamOn;
  }

  /** Opens each device in turn (at most two at once), and waits until it matches the server. */
  async settle(): Promise<string[]> {
    const problems: string[] = [];
    for (const device of this.devices) this.setOnline(device, true);
    // First every device sends what it has; then every device pulls what the others sent.
    for (const device of this.devices) {
      if (!this.isOpen(device)) {
        const other = this.devices.find((d) => d !== device && this.isOpen(d));
        if (other && this.devices.filter((d) => this.isOpen(d)).length >= MAX_OPEN) await this.close(other);
        await this.open(device);
      }
      problems.push(...(await this.flush(device, 30_000)));
    }
    problems.push(...(await this.liveDelivery()));
    await Promise.all(this.devices.map((d) => this.close(d)));
    const seq = await this.serverSeq();
    for (const device of this.devices) {
      await this.open(device);
      problems.push(...(await this.flush(device, 10_000)));
      let diff = await this.diffDevice(device);
      const deadline = Date.now() + 20_000;
      while (diff.length > 0 && Date.now() < deadline) {
        await sleep(250);
        diff = await this.diffDevice(device);
      }
      problems.push(...diff);
      await this.close(device);
    }
    if ((await this.serverSeq()) !== seq) problems.push('the server changed while the devices were only meant to pull');
    problems.push(...(await this.diffLedger()));
    return problems;
  }
}

/**
 * A simulated device for the delivery and active-load benches: it keeps the live stream open and applies the sync
 * protocol as the app does (docs/sync.md), with Node's http client on a kept-alive agent of its own, and records when
 * it came to hold each change and how many bytes it received.
 *
 * Per collection it keeps a checkpoint and its coverage: the global sequence up to which it holds everything it may
 * see. A pull page shorter than the limit that carries `through` sets the coverage; a full page pulls again from its
 * checkpoint. A change event carrying `documents` with `since <= coverage < checkpoint.seq` is held at its receipt
 * (coverage and checkpoint move to the event's); one with `coverage >= checkpoint.seq` needs nothing; any other event
 * (no documents, no coverage yet, a gap) pulls, as the app does today. One pull per collection at a time: events that
 * arrive during it are looked at again when it ends, and those that still need a pull make one more, together.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { conversationIdOf } from '../schema/chat-rules';
import type { ReactionType } from '../schema/post-rules';
import { reactionId, SYNC_DEVICE_HEADER, SYNC_EVENTS, type SyncCheckpoint, type SyncCollection } from '../schema/sync';

/** A synced document as the wire carries it. */
export type WireDoc = Record<string, unknown> & { id: string };

/** A change event's data: today only the collection; with delivery, the change itself (docs/sync.md). */
export interface ChangeEventData {
  collection: SyncCollection;
  since?: number;
  checkpoint?: SyncCheckpoint;
  documents?: WireDoc[];
}

/** A pull answer; `through` is the global sequence up to which a short page holds everything visible. */
export interface PullAnswer {
  documents: WireDoc[];
  checkpoint: SyncCheckpoint;
  through?: number;
}

/** How a device came to hold documents. */
export type HeldVia = 'event' | 'pull';

/** One pull or push call as the device saw it. */
export interface CallTiming {
  kind: 'pull' | 'push';
  collection: SyncCollection;
  ms: number;
  status: number;
}

export interface SimDeviceOptions {
  base: string;
  /** The `sp_session` cookie's token. */
  token: string;
  /** The X-Sync-Device header's value (6 to 64 letters, digits, `-` or `_`). */
  deviceId: string;
  collections: readonly SyncCollection[];
  /** Where every collection starts: a device that synced before holds everything up to it (no coverage yet). */
  checkpoint?: SyncCheckpoint;
  /** Pull page size; the app asks for 1,000. */
  limit?: number;
  /** The change keys a document carries (e.g. a post carries its reactions); held times are kept for these only. */
  keysOf?: (collection: SyncCollection, doc: WireDoc) => Iterable<string>;
  /** Every document the device comes to hold, with how and when. */
  onDocuments?: (collection: SyncCollection, documents: WireDoc[], via: HeldVia, at: number) => void;
  onCall?: (call: CallTiming) => void;
  /** Agent for the streams; one shared agent without a socket limit keeps one socket per stream. */
  streamAgent?: http.Agent;
}

/** A kept-alive socket closed by the server as a request was sent on it: worth sending again. */
class ReusedSocketClosed extends Error {}

/** Epoch milliseconds with sub-millisecond precision, comparable between this process's devices and writers. */
export const clock = () => performance.timeOrigin + performance.now();

interface CollectionState {
  checkpoint: SyncCheckpoint | undefined;
  coverage: number | undefined;
  pulling: boolean;
  /** Events (or pull requests, null) that came during the pull in flight. */
  queued: (ChangeEventData | null)[];
}

const defaultStreamAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** Every device gets the same frame for a change sent to all: parse it once. */
let lastEvent: { data: string; parsed: ChangeEventData } | undefined;
function parseEvent(data: string): ChangeEventData {
  // The server's own JSON; the benches trust its shape.
  if (lastEvent?.data !== data) lastEvent = { data, parsed: JSON.parse(data) as ChangeEventData };
  return lastEvent.parsed;
}

const waiters = new Set<() => void>();
let wakeScheduled = false;
/** A device came to hold something: waiters look again once this turn's data has been read. */
function wakeWaiters(): void {
  if (wakeScheduled) return;
  wakeScheduled = true;
  setImmediate(() => {
    wakeScheduled = false;
    for (const wake of [...waiters]) wake();
  });
}

/** Waits until `check` holds, looking again when a device holds something new (and every 100 ms). */
export async function waitUntil(check: () => boolean, timeoutMs: number, what = 'the condition'): Promise<void> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => {
      const wake = () => {
        waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, 100);
      waiters.add(wake);
    });
  }
}

/** The decision the protocol takes on a change event, given the collection's coverage. */
export function decide(coverage: number | undefined, event: ChangeEventData): 'hold' | 'nothing' | 'pull' {
  const upTo = event.checkpoint?.seq;
  if (upTo === undefined || coverage === undefined) return 'pull';
  if (coverage >= upTo) return 'nothing';
  if (event.documents && event.since !== undefined && event.since <= coverage) return 'hold';
  return 'pull';
}

export class SimDevice {
  /** Per change key, when this device first held it (clock()). */
  readonly held = new Map<string, number>();
  /** Bytes of the stream and of the pull and push answers (bodies as sent, compressed or not). */
  bytes = 0;
  pulls = 0;
  /** Change events whose documents the device held at receipt. */
  delivered = 0;
  errors = 0;
  connected = false;
  private readonly states = new Map<SyncCollection, CollectionState>();
  /** Idle sockets are dropped before the server's keep-alive timeout (Node's default, 5 s) would close them. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 2, timeout: 4000 });
  private readonly abort = new AbortController();
  private ready: () => void = () => undefined;
  /** Resolves when the stream's RESYNC arrived and every collection's first pull ended. */
  readonly synced: Promise<void>;
  private readonly limit: number;

  constructor(private readonly options: SimDeviceOptions) {
    this.limit = options.limit ?? 1000;
    for (const name of options.collections) {
      this.states.set(name, { checkpoint: options.checkpoint, coverage: undefined, pulling: false, queued: [] });
    }
    this.synced = new Promise((resolve) => (this.ready = resolve));
  }

  /** Opens the live stream; RESYNC on connect pulls every collection. */
  connect(): void {
    const request = http.get(`${this.options.base}/api/sync/stream`, {
      headers: { cookie: `sp_session=${this.options.token}`, accept: 'text/event-stream' },
      agent: this.options.streamAgent ?? defaultStreamAgent,
      signal: this.abort.signal,
    });
    request.on('error', () => {
      if (!this.abort.signal.aborted) this.errors += 1;
    });
    request.on('response', (response) => {
      if (response.statusCode !== 200) this.errors += 1;
      let buffer = '';
      response.on('data', (chunk: Buffer) => {
        const at = clock();
        this.bytes += chunk.length;
        buffer += chunk.toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.onBlock(block, at);
        }
      });
      response.on('error', () => undefined);
    });
  }

  /** The server this device talks to. */
  get base(): string {
    return this.options.base;
  }

  /** Whether no pull is in flight or waiting. */
  idle(): boolean {
    for (const state of this.states.values()) if (state.pulling || state.queued.length > 0) return false;
    return true;
  }

  /** A collection's coverage and checkpoint (tests). */
  stateOf(collection: SyncCollection): { coverage: number | undefined; checkpoint: SyncCheckpoint | undefined } {
    const state = this.states.get(collection)!;
    return { coverage: state.coverage, checkpoint: state.checkpoint };
  }

  /** Pushes rows as the app does (X-Sync-Device, one request); answers the status and the parsed answer. */
  async push(collection: SyncCollection, rows: unknown[]): Promise<{ status: number; body: unknown; ms: number }> {
    const body = JSON.stringify(rows);
    const start = performance.now();
    const answer = await this.request('POST', `/api/sync/${collection}/push`, body, {
      'content-type': 'application/json',
      [SYNC_DEVICE_HEADER.toLowerCase()]: this.options.deviceId,
    });
    const ms = performance.now() - start;
    this.options.onCall?.({ kind: 'push', collection, ms, status: answer.status });
    return { status: answer.status, body: answer.text ? (JSON.parse(answer.text) as unknown) : null, ms };
  }

  close(): void {
    this.abort.abort();
    this.agent.destroy();
  }

  private onBlock(block: string, at: number): void {
    let event = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (event === SYNC_EVENTS.resync) {
      this.connected = true;
      const firsts = [...this.states.keys()].map((name) => this.onEvent(name, null, at));
      void Promise.all(firsts).then(() => this.ready());
    } else if (event === SYNC_EVENTS.change) {
      const parsed = parseEvent(data);
      if (this.states.has(parsed.collection)) void this.onEvent(parsed.collection, parsed, at);
    }
  }

  /** An event (null: a pull request) for one collection: held, ignored, pulled for, or kept until the pull ends. */
  private async onEvent(name: SyncCollection, event: ChangeEventData | null, at: number): Promise<void> {
    const state = this.states.get(name)!;
    if (state.pulling) {
      state.queued.push(event);
      return;
    }
    if (this.apply(name, state, event, at)) await this.pull(name, state);
  }

  /** Applies an event that needs no pull; answers whether it needs one. */
  private apply(name: SyncCollection, state: CollectionState, event: ChangeEventData | null, at: number): boolean {
    const decision = event ? decide(state.coverage, event) : 'pull';
    if (decision === 'pull') return true;
    if (decision === 'hold') {
      state.coverage = event!.checkpoint!.seq;
      state.checkpoint = event!.checkpoint;
      this.delivered += 1;
      this.hold(name, event!.documents!, 'event', at);
    }
    return false;
  }

  /** Pulls until a short page, then looks again at what came meanwhile; one more pull if any of it needs one. */
  private async pull(name: SyncCollection, state: CollectionState): Promise<void> {
    state.pulling = true;
    try {
      for (let again = true; again;) {
        for (;;) {
          const page = await this.pullPage(name, state.checkpoint);
          if (!page) {
            if (this.abort.signal.aborted) return;
            await new Promise((resolve) => setTimeout(resolve, 500));
            continue;
          }
          state.checkpoint = page.checkpoint;
          if (page.documents.length < this.limit) {
            if (page.through !== undefined) state.coverage = page.through;
            break;
          }
        }
        const queued = state.queued.splice(0);
        again = false;
        for (const event of queued) if (this.apply(name, state, event, clock())) again = true;
      }
    } finally {
      state.pulling = false;
    }
  }

  /** One pull page; null when the call failed (the device tries again, as RxDB does). */
  private async pullPage(name: SyncCollection, checkpoint: SyncCheckpoint | undefined): Promise<PullAnswer | null> {
    const query = new URLSearchParams({ limit: String(this.limit) });
    if (checkpoint) {
      query.set('seq', String(checkpoint.seq));
      query.set('id', checkpoint.id);
    }
    const start = performance.now();
    this.pulls += 1;
    try {
      const answer = await this.request('GET', `/api/sync/${name}/pull?${query}`);
      this.options.onCall?.({ kind: 'pull', collection: name, ms: performance.now() - start, status: answer.status });
      if (answer.status !== 200) {
        this.errors += 1;
        return null;
      }
      // The server's answer to a pull (schema/sync.ts); the benches trust its shape.
      const page = JSON.parse(answer.text) as PullAnswer;
      this.hold(name, page.documents, 'pull', answer.at);
      return page;
    } catch {
      if (!this.abort.signal.aborted) this.errors += 1;
      return null;
    }
  }

  private hold(name: SyncCollection, documents: WireDoc[], via: HeldVia, at: number): void {
    if (documents.length === 0) return;
    const { keysOf, onDocuments } = this.options;
    if (keysOf) {
      for (const doc of documents) {
        for (const key of keysOf(name, doc)) if (!this.held.has(key)) this.held.set(key, at);
      }
    }
    onDocuments?.(name, documents, via, at);
    wakeWaiters();
  }

  /**
   * One request on the device's kept-alive connection; `at` is when the whole answer had arrived. A kept-alive
   * socket the server closed just as it was reused is retried at once on a new one, as browsers do.
   */
  private async request(
    method: 'GET' | 'POST',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; at: number }> {
    for (;;) {
      try {
        return await this.requestOnce(method, path, body, headers);
      } catch (error) {
        if (!(error instanceof ReusedSocketClosed)) throw error;
      }
    }
  }

  private requestOnce(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string; at: number }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        `${this.options.base}${path}`,
        {
          method,
          agent: this.agent,
          signal: this.abort.signal,
          headers: {
            ...headers,
            cookie: `sp_session=${this.options.token}`,
            'accept-encoding': 'gzip',
            ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.once('end', () => {
            const at = clock();
            const raw = Buffer.concat(chunks);
            this.bytes += raw.length;
            const text = (response.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString(
              'utf8',
            );
            resolve({ status: response.statusCode ?? 0, text, at });
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(request.reusedSocket && error.code === 'ECONNRESET' ? new ReusedSocketClosed() : error),
      );
      request.end(body);
    });
  }
}

/**
 * The change keys the benches follow: a document by collection and id, and each reaction a post carries (everyone's
 * reactions reach devices on the post, docs/sync.md).
 */
export function changeKeys(collection: SyncCollection, doc: WireDoc): string[] {
  const keys = [`${collection}/${doc.id}`];
  if (collection === 'posts' && doc.reactions && typeof doc.reactions === 'object') {
    // Checked to be an object just above; each entry is then checked to be a list.
    for (const users of Object.values(doc.reactions as Record<string, unknown>)) {
      if (Array.isArray(users)) for (const user of users) keys.push(reactionKey(doc.id, String(user)));
    }
  }
  return keys;
}

export const reactionKey = (postId: string, userId: string) => `reaction/${postId}/${userId}`;

/** A create as RxDB pushes it: the new document, no assumed master. */
export const createRow = (doc: WireDoc) => ({ newDocumentState: doc, assumedMasterState: null });

/** A post as the app writes it (schema/sync.ts PostDoc); the server sets the author and its own times. */
export function newPostDoc(authorId: string, content: string, isUrgent = false): WireDoc {
  const at = Date.now();
  return {
    id: randomUUID(),
    authorId,
    content,
    category: 'company_announcement',
    isUrgent,
    houseTags: [],
    audienceHouses: [],
    images: [],
    attachments: [],
    reactions: {},
    createdAt: at,
    writtenAt: at,
    updatedAt: at,
    editedBy: null,
    _deleted: false,
  };
}

export function newCommentDoc(postId: string, authorId: string, content: string): WireDoc {
  const at = Date.now();
  return { id: randomUUID(), postId, authorId, content, createdAt: at, writtenAt: at, updatedAt: at, _deleted: false };
}

export function newReactionDoc(postId: string, userId: string, type: ReactionType): WireDoc {
  const at = Date.now();
  return { id: reactionId(postId, userId), postId, userId, type, createdAt: at, updatedAt: at, _deleted: false };
}

/** A message to a colleague; the server opens the conversation if the pair has none (docs/sync.md, "Chat"). */
export function newMessageDoc(senderId: string, recipientId: string, content: string): WireDoc {
  const at = Date.now();
  return {
    id: randomUUID(),
    conversationId: conversationIdOf(senderId, recipientId),
    senderId,
    content,
    createdAt: at,
    writtenAt: at,
    _deleted: false,
  };
}

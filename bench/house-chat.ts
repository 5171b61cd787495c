/**
 * Figures: a message in a house chat of 200 members held by all 200 devices (p99 < 100 ms from the push's start, none
 * missing) with 5,000 devices connected to the live stream (BENCH_DEVICES overrides), and "Seen by" reaching the
 * sender: from a reader's read mark pushed as the app pushes it (the synced `readUpTo`) until the sender's device holds
 * the conversation with that mark in its `readMarks` (p99 < 250 ms), over many reads by different members.
 * Baseline in the same run: the same two figures in a one-to-one chat between two of the connected colleagues (a
 * message held by its one recipient, a read mark reaching the other side).
 *
 * The server runs in its own process (bench/sim-server.ts), the devices in this one, applying docs/sync.md's protocol
 * (bench/sim-device.ts), as in bench/delivery.ts, whose notes on reading the reader's own load apply here too.
 * Run: node --import tsx bench/house-chat.ts
 */
import { performance } from 'node:perf_hooks';
import { conversationIdOf, houseChatIdOf } from '../schema/chat-rules';
import type { SyncCollection } from '../schema/sync';
import { percentile, printFigures, printMachine, round } from './bench-report';
import { changeKeys, clock, createRow, SimDevice, waitUntil, type WireDoc } from './sim-device';
import { connectDevices, cpuMs, startServerProcess, type ServerProcess } from './sim-server';

const SIZE = Number(process.env.BENCH_DEVICES ?? 5000);
const HOUSE = 'Tudor Way';
const MEMBERS = Math.min(200, SIZE - 21);
/** Messages into the house chat, each followed by one member's read. */
const ROUNDS = 40;
const TARGETS = { deliveryP99: 100, seenP99: 250 };
/** The longest one message or read may take before the bench gives up on it (it counts as never held). */
const HOLD_TIMEOUT_MS = 10_000;
const COLLECTIONS: SyncCollection[] = ['conversations', 'messages'];

/** When each message was stored on the server (its `createdAt`), by id: what a reader's mark names. */
const createdAtOf = new Map<string, number>();

/**
 * The keys the two senders' devices hold: each message, and each member's read mark a conversation carries
 * (`seen/{conversation}/{user}/{mark}`), so a sender's device is seen to hold a reader's new mark. Other devices keep
 * only the messages' keys: 199 keys per conversation on each of 200 devices would slow this one process, not the server.
 */
function senderKeysOf(collection: SyncCollection, doc: WireDoc): string[] {
  const keys = memberKeysOf(collection, doc);
  if (collection === 'conversations' && doc.readMarks && typeof doc.readMarks === 'object') {
    // Checked to be an object just above: the other members' marks by user id (schema/sync.ts ConversationDoc).
    for (const [userId, mark] of Object.entries(doc.readMarks as Record<string, unknown>)) {
      keys.push(`seen/${doc.id}/${userId}/${String(mark)}`);
    }
  }
  return keys;
}

/** A member's device: each message it holds, with its time stored (what a reader's mark names). */
function memberKeysOf(collection: SyncCollection, doc: WireDoc): string[] {
  if (collection === 'messages' && typeof doc.createdAt === 'number') createdAtOf.set(doc.id, doc.createdAt);
  return changeKeys(collection, doc);
}

function newMessage(conversationId: string, senderId: string, content: string): WireDoc {
  const at = Date.now();
  return { id: crypto.randomUUID(), conversationId, senderId, content, createdAt: at, writtenAt: at, _deleted: false };
}

/** Puts the house's members in it through the admin API, as the admin page does (the chat follows the house list). */
async function putInHouse(server: ServerProcess, userIds: string[]): Promise<void> {
  const admin = server.users[0]; // seeded first: the system administrator (bench/seed.ts)
  for (const id of userIds) {
    const res = await fetch(`${server.base}/api/admin/users/${id}/houses`, {
      method: 'PUT',
      headers: { cookie: `sp_session=${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ houses: [HOUSE] }),
    });
    if (res.status !== 200) throw new Error(`putting ${id} in ${HOUSE} answered ${res.status}`);
  }
}

/** Until each of `devices` holds `key` (or HOLD_TIMEOUT_MS passes): each one's time from `start`, Infinity if never. */
async function heldBy(devices: SimDevice[], key: string, start: number): Promise<number[]> {
  let waiting = devices;
  await waitUntil(() => (waiting = waiting.filter((d) => !d.held.has(key))).length === 0, HOLD_TIMEOUT_MS, key).catch(
    () => undefined,
  );
  return devices.map((d) => (d.held.get(key) ?? Infinity) - start);
}

interface Series {
  /** ms from a message's push until each other member's device held it. */
  delivery: number[];
  /** ms from a reader's read mark push until the sender's device held the mark. */
  seen: number[];
  /** Server CPU per round (a message and a read), ms. */
  cpuPerRound: number;
}

/**
 * ROUNDS times: the sender pushes a message into the conversation and every other member's device is waited for; then
 * the next reader pushes their read mark up to it, and the sender's device is waited for.
 */
async function series(
  server: ServerProcess,
  conversationId: string,
  sender: SimDevice,
  senderId: string,
  others: { device: SimDevice; userId: string }[],
): Promise<Series> {
  const delivery: number[] = [];
  const seen: number[] = [];
  const cpuBefore = cpuMs(server.pid);
  for (let round = 0; round < ROUNDS; round += 1) {
    const message = newMessage(conversationId, senderId, `Handover at 7, please (${round})`);
    const start = clock();
    void sender.push('messages', [createRow(message)]);
    delivery.push(
      ...(await heldBy(
        others.map((o) => o.device),
        `messages/${message.id}`,
        start,
      )),
    );
    const reader = others[round % others.length];
    const mark = createdAtOf.get(message.id);
    if (mark === undefined) continue; // never held: counted missing above
    const readAt = clock();
    // As the app writes a read mark: the conversation with the reader's own `readUpTo` (docs/sync.md); the last push
    // wins for a member's own fields, and a push that names no `otherUserId` leaves the participants alone.
    void reader.device.push('conversations', [createRow({ id: conversationId, readUpTo: mark, _deleted: false })]);
    seen.push(...(await heldBy([sender], `seen/${conversationId}/${reader.userId}/${mark}`, readAt)));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    delivery: delivery.sort((a, b) => a - b),
    seen: seen.sort((a, b) => a - b),
    cpuPerRound: (cpuMs(server.pid) - cpuBefore) / ROUNDS,
  };
}

const ms = (value: number) =>
  Number.isFinite(value) ? `${round(value)} ms` : `not held in ${HOLD_TIMEOUT_MS / 1000} s`;
const missing = (times: number[]) => times.filter((t) => !Number.isFinite(t)).length;

function figures(house: Series, direct: Series): void {
  const rows = [
    {
      figure: `House chat message held by all ${MEMBERS} members' devices (${SIZE} connected), p99 from the push`,
      target: `< ${TARGETS.deliveryP99} ms, none missing`,
      measured: `${ms(percentile(house.delivery, 99))} (p50 ${ms(percentile(house.delivery, 50))}, ${missing(house.delivery)} missing of ${house.delivery.length})`,
      baseline: `one-to-one: ${ms(percentile(direct.delivery, 99))}`,
      ratio: String(round(percentile(house.delivery, 99) / percentile(direct.delivery, 99), 3)),
      pass: percentile(house.delivery, 99) < TARGETS.deliveryP99 && missing(house.delivery) === 0,
    },
    {
      figure: `"Seen by" at the sender after a read, house chat of ${MEMBERS} (${SIZE} connected), p99`,
      target: `< ${TARGETS.seenP99} ms`,
      measured: `${ms(percentile(house.seen, 99))} (p50 ${ms(percentile(house.seen, 50))}, ${house.seen.length} reads)`,
      baseline: `one-to-one "Seen": ${ms(percentile(direct.seen, 99))}`,
      ratio: String(round(percentile(house.seen, 99) / percentile(direct.seen, 99), 3)),
      pass: percentile(house.seen, 99) < TARGETS.seenP99,
    },
    {
      figure: `Server CPU per house chat message and read (${SIZE} connected)`,
      target: '-',
      measured: ms(house.cpuPerRound),
      baseline: `one-to-one: ${ms(direct.cpuPerRound)}`,
      ratio: String(round(house.cpuPerRound / Math.max(0.1, direct.cpuPerRound), 3)),
      pass: null,
    },
  ];
  printFigures(rows);
}

async function main(): Promise<void> {
  printMachine();
  const started = performance.now();
  const server = await startServerProcess(SIZE, 'delivery');
  const devices: SimDevice[] = [];
  try {
    // The first twenty seeded users are administrators; the house's members are staff after them.
    const members = server.users.slice(20, 20 + MEMBERS).map((user) => user.id);
    await putInHouse(server, members);
    // The senders: the house's first member and the first colleague after the house's members (below).
    const senders = new Set([20, 20 + MEMBERS]);
    await connectDevices(server, devices, SIZE, (user, i) => ({
      collections: COLLECTIONS,
      keysOf: senders.has(i) ? senderKeysOf : memberKeysOf,
      deviceId: `bench-house-${i}`,
    }));
    console.log(`${SIZE} devices connected in ${round((performance.now() - started) / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const deviceOf = (index: number) => ({ device: devices[index], userId: server.users[index].id });
    const [sender, ...others] = members.map((_, i) => deviceOf(20 + i));
    const house = await series(server, houseChatIdOf(HOUSE), sender.device, sender.userId, others);
    // Two colleagues outside the house, after its members.
    const [a, b] = [deviceOf(20 + MEMBERS), deviceOf(21 + MEMBERS)];
    const direct = await series(server, conversationIdOf(a.userId, b.userId), a.device, a.userId, [b]);
    const errors = devices.reduce((sum, d) => sum + d.errors, 0);
    if (errors > 0) console.log(`  ${errors} failed calls (retried)`);
    figures(house, direct);
  } finally {
    devices.forEach((d) => d.close());
    await server.stop();
  }
  console.log(`house chat bench: ${round((performance.now() - started) / 1000)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

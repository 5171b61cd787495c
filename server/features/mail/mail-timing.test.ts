import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { closedSmtpUrl, startSmtpServer } from '../../test/smtp';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../../test/test-server';

/** Requests measured per address kind; medians of this many shrug off a loaded machine's outliers. */
const SAMPLES = 25;
const WARM_UP = 3;
/** The review measured 54 ms against 2.7 ms; alike means medians this close... */
const ALIKE_MS = 10;
/** ...or, for an answer slowed by a loaded machine past 67 ms, within this share of the slower median. */
const ALIKE_SHARE = 0.15;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

interface Sample {
  status: number;
  body: string;
  ms: number;
}

let client = 0;
/** Each request from its own client (TRUST_PROXY), so the per-client limit never mixes into the figures. */
async function timed(t: TestServer, path: string, body: unknown): Promise<Sample> {
  client += 1;
  const from = { 'x-forwarded-for': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}` };
  const started = performance.now();
  const res = await t.client().post(path, body, from);
  return { status: res.status, body: res.text, ms: performance.now() - started };
}

/**
 * A known and an unknown address asked at the same moment, each sent first every other time: a slower moment of a
 * loaded machine (or the outbox sending an earlier mail) falls on both alike, which requests in turn did not ensure.
 */
async function compare(t: TestServer, path: string, bodyFor: (email: string) => unknown) {
  const known: Sample[] = [];
  const unknown: Sample[] = [];
  for (let i = 0; i < WARM_UP + SAMPLES; i += 1) {
    const user = await t.buildUser();
    const ask = [
      () => timed(t, path, bodyFor(user.email)),
      () => timed(t, path, bodyFor(`nobody-${i}-${Date.now()}@test.example`)),
    ];
    const [a, b] =
      i % 2 === 0 ? await Promise.all([ask[0](), ask[1]()]) : (await Promise.all([ask[1](), ask[0]()])).reverse();
    if (i >= WARM_UP) {
      known.push(a);
      unknown.push(b);
    }
  }
  return { known, unknown };
}

function expectAlike({ known, unknown }: { known: Sample[]; unknown: Sample[] }, status: number) {
  expect(new Set(known.map((s) => `${s.status} ${s.body}`))).toEqual(new Set([`${status} ${unknown[0].body}`]));
  expect(new Set(unknown.map((s) => `${s.status} ${s.body}`))).toEqual(new Set([`${status} ${unknown[0].body}`]));
  const medians = [median(known.map((s) => s.ms)), median(unknown.map((s) => s.ms))];
  // A registration hashes a password: on a loaded machine its own noise grows with it, so the bound does too.
  const bound = Math.max(ALIKE_MS, ALIKE_SHARE * Math.max(...medians));
  expect(Math.abs(medians[0] - medians[1]), `medians ${medians.join(' and ')} ms`).toBeLessThan(bound);
}

const registration = (email: string) => ({
  email,
  password: TEST_PASSWORD,
  confirmPassword: TEST_PASSWORD,
  firstName: 'Reg',
  lastName: 'Istered',
  role: 'staff',
});

describe.each([
  { smtp: 'slow (each answer held 300 ms)', start: () => startSmtpServer({ delayMs: 300 }) },
  {
    smtp: 'down (nothing listens)',
    start: async () => ({ url: (await closedSmtpUrl()).url, close: () => Promise.resolve() }),
  },
])('with the mail server $smtp, a known and an unknown address answer alike', ({ start }) => {
  const opened: { close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const item of opened.reverse()) await item.close();
  });

  async function server() {
    const smtp = await start();
    opened.push(smtp);
    const t = await startTestServer({ SMTP_URL: smtp.url, TRUST_PROXY: 'true' });
    opened.push(t);
    return t;
  }

  it('POST /api/auth/forgot-password: same status, same body, medians within 10 ms (or 15 %)', async () => {
    const t = await server();
    expectAlike(await compare(t, '/api/auth/forgot-password', (email) => ({ email })), 202);
  });

  it('POST /api/auth/register: same status, same body, medians within 10 ms (or 15 %)', async () => {
    const t = await server();
    expectAlike(await compare(t, '/api/auth/register', registration), 202);
  });
});

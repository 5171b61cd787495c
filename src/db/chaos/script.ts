import { prng } from '../test-fixtures';

/**
 * The seed `npm test` always runs, so a red run replays anywhere; `npm run test:chaos` tries fresh ones
 * (scripts/chaos.ts).
 */
export const FIXED_SEED = 2612203865;

/**
 * What a run does: its seed (CHAOS_SEED, else the fixed one), its length (CHAOS_OPS, else the test file's default)
 * and what to trace.
 */
export function chaosSettings(
  env: NodeJS.ProcessEnv = process.env,
  defaultOps = 300,
): { seed: number; ops: number; trace?: string } {
  return {
    seed: env.CHAOS_SEED ? Number(env.CHAOS_SEED) : FIXED_SEED,
    ops: Number(env.CHAOS_OPS ?? defaultOps),
    trace: env.CHAOS_TRACE,
  };
}

/** Seeded UUIDs (v4 layout), so the documents of a replayed run have the same ids. */
export function uuids(seed: number): () => string {
  const random = prng(seed ^ 0x5bd1e995);
  return () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
    hex[12] = '4';
    hex[16] = '89ab'[Math.floor(random() * 4)];
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
}

export const OP_WEIGHTS = {
  createPost: 11,
  editPost: 10,
  deletePost: 3,
  addComment: 12,
  deleteComment: 4,
  toggleReaction: 14,
  sendMessage: 16,
  markRead: 5,
  acknowledge: 7,
  network: 9,
  loseAnswer: 3,
  rotate: 3,
  pause: 3,
} as const;
export type OpKind = keyof typeof OP_WEIGHTS | 'serverStop' | 'serverKill' | 'serverStart';

/** One step of the script: what kind, and the random numbers that pick who and what (resolved when run). */
export interface Step {
  kind: OpKind;
  r: [number, number, number, number];
  delayMs: number;
}

/**
 * The whole script from the seed, before anything runs: each step draws the same numbers whatever happens,
 * so a replay runs the same steps even where timing makes a step find other documents to act on.
 */
export function makeScript(seed: number, ops: number): Step[] {
  const random = prng(seed);
  const kinds = Object.entries(OP_WEIGHTS) as [keyof typeof OP_WEIGHTS, number][];
  const total = kinds.reduce((sum, [, w]) => sum + w, 0);
  const steps: Step[] = [];
  for (let i = 0; i < ops; i += 1) {
    let roll = random() * total;
    const kind = kinds.find(([, w]) => (roll -= w) < 0)?.[0] ?? 'pause';
    steps.push({ kind, r: [random(), random(), random(), random()], delayMs: Math.floor(random() * 25) });
  }
  // The first step makes an urgent post, so there are alerts to acknowledge from early on.
  steps[0] = { ...steps[0], kind: 'createPost', r: [0, 0, 0, 0] };
  // Two restarts: graceful in the first half, SIGKILL in the second, each down for a few steps.
  const stopAt = Math.floor(ops * (0.25 + 0.15 * random()));
  const killAt = Math.floor(ops * (0.6 + 0.15 * random()));
  const downFor = () => 3 + Math.floor(random() * 12);
  const [firstDown, secondDown] = [downFor(), downFor()];
  // A short script could reach the kill while the server is still stopped: the kill comes after it is back.
  const killAfterStart = Math.max(killAt, stopAt + firstDown + 1);
  const restarts: [number, OpKind][] = [
    [stopAt, 'serverStop'],
    [stopAt + firstDown, 'serverStart'],
    [killAfterStart, 'serverKill'],
    [killAfterStart + secondDown, 'serverStart'],
  ];
  // In order, each before the step it was drawn for (shifted by those already put in), or at the end of a short script.
  restarts.forEach(([at, kind], inserted) => {
    steps.splice(Math.min(at + inserted, steps.length), 0, { kind, r: [0, 0, 0, 0], delayMs: 0 });
  });
  return steps;
}

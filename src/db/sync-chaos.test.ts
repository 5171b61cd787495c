import 'fake-indexeddb/auto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { endChaos, playChaos } from './chaos/play';
import { ChaosRun } from './chaos/run';
import { chaosSettings } from './chaos/script';
import { ChaosServers } from './chaos/servers';

/**
 * Sync chaos (docs/sync.md "Sync chaos"): three devices make a few hundred random writes while going offline, losing
 * answers, closing and reopening, and the server restarts twice (once SIGKILLed); at the end every device and the
 * server must hold the same data, everything written must be there, once. `npm test` runs the fixed seed;
 * `npm run test:chaos` tries fresh ones and prints each failing seed's replay command (scripts/chaos.ts). The run's
 * parts: the script from the seed (chaos/script.ts), the devices and the ledger (chaos/ledger.ts), the run and its
 * checks (chaos/run.ts), the loop and its report (chaos/play.ts). sync-chaos-two-servers.test.ts plays the same on two
 * servers behind a proxy.
 *
 * CHAOS_SEED=<n> replays a run's script; CHAOS_OPS=<n> makes a longer one (default 300).
 */
const { seed: SEED, ops: OPS, trace: TRACE } = chaosSettings();

describe('sync chaos', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-chaos-'));
  let run: ChaosRun | null = null;
  afterAll(async () => {
    await endChaos(run);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `keeps three devices and the server identical through offline writes, lost answers and two server restarts (seed ${SEED})`,
    async () => {
      run = new ChaosRun(await ChaosServers.create('one-sqlite', dataDir), SEED, TRACE);
      await playChaos(run, { seed: SEED, ops: OPS, file: 'src/db/sync-chaos.test.ts' });
    },
    Math.max(240_000, OPS * 1000),
  );
});

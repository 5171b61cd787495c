import 'fake-indexeddb/auto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../server/test/postgres';
import { endChaos, playChaos } from './chaos/play';
import { ChaosRun } from './chaos/run';
import { chaosSettings } from './chaos/script';
import { ChaosServers } from './chaos/servers';

const bin = postgresOrSkip();

/**
 * Sync chaos on two servers (docs/sync.md "Sync chaos"): the run of sync-chaos.test.ts, but the devices talk to a
 * round-robin proxy in front of two server processes on one PostgreSQL database (decisions 157 and 158), so each
 * request and live stream may land on either; one server is stopped and later the other SIGKILLed, and the devices
 * carry on through the one left. The same end checks, and each open device must hear live of a post pushed through the
 * server its stream is not on. `npm run test:chaos -- --two-servers` tries fresh seeds.
 *
 * CHAOS_SEED=<n> replays a run's script; CHAOS_OPS=<n> sets its length (default 200 here, to stay near a minute).
 */
const { seed: SEED, ops: OPS, trace: TRACE } = chaosSettings(process.env, 200);

describe.skipIf(bin === null)('sync chaos on two servers behind a proxy', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-chaos2-'));
  let postgres: TestPostgres | null = null;
  let run: ChaosRun | null = null;
  afterAll(async () => {
    await endChaos(run);
    await postgres?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `keeps three devices and one PostgreSQL identical through two servers taking turns, each restarted once (seed ${SEED})`,
    async () => {
      postgres = await startTestPostgres(bin);
      run = new ChaosRun(await ChaosServers.create('two-postgres', dataDir, postgres.url), SEED, TRACE);
      await playChaos(run, { seed: SEED, ops: OPS, file: 'src/db/sync-chaos-two-servers.test.ts' });
    },
    Math.max(240_000, OPS * 1000),
  );
});

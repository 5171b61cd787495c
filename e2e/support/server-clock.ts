import fs from 'node:fs';
import { E2E_CLOCK_PORT_FILE } from '../env';

/**
 * Sets how far the journeys' server clock runs ahead of the real one (e2e/serve.ts); 0 puts it back. The journeys run
 * one at a time on each worker's own server (decision 160), and the one that moves the clock puts it back in `finally`.
 */
export async function setServerClockAhead(ms: number): Promise<void> {
  const port = fs.readFileSync(E2E_CLOCK_PORT_FILE, 'utf8').trim();
  const res = await fetch(`http://127.0.0.1:${port}/offset?ms=${ms}`, { method: 'PUT' });
  if (res.status !== 204) throw new Error(`the server clock refused ${ms} ms: ${await res.text()}`);
}

import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from '../../../server/db/client';
import { freePort, startServerProcess, type ServerProcess } from '../../../server/test/server-process';
import { startRoundRobinProxy, type RoundRobinProxy } from './proxy';

/**
 * What the devices sync with (docs/sync.md, "Sync chaos"): one server on its SQLite file, or two servers on one
 * PostgreSQL database behind a round-robin proxy.
 */
export type ChaosServerMode = 'one-sqlite' | 'two-postgres';

/** One app server process: its own data folder (and lock file) and a fixed port, so it can start again. */
export interface Backend {
  name: string;
  dataDir: string;
  port: number;
  process: ServerProcess | null;
}

/** The servers of a run, and the one address the devices use: the server's own, or the proxy's. */
export class ChaosServers {
  private proxy: RoundRobinProxy | null = null;

  private constructor(
    readonly mode: ChaosServerMode,
    readonly backends: Backend[],
    private readonly databaseUrl: string | null,
    private readonly env: Record<string, string>,
  ) {}

  /**
   * The backends of a mode in `root`: one server whose data folder is `root`, or two servers A and B, each with a
   * data folder of its own, on `databaseUrl`, sharing one files folder as servers behind a balancer must (decision
   * 153).
   */
  static async create(mode: ChaosServerMode, root: string, databaseUrl?: string): Promise<ChaosServers> {
    if (mode === 'one-sqlite') {
      return new ChaosServers(
        mode,
        [{ name: 'the server', dataDir: root, port: await freePort(), process: null }],
        null,
        {},
      );
    }
    if (!databaseUrl) throw new Error('two-postgres needs a PostgreSQL database');
    const backends: Backend[] = [];
    for (const name of ['A', 'B']) {
      const dataDir = path.join(root, name);
      fs.mkdirSync(dataDir, { recursive: true });
      backends.push({ name: `server ${name}`, dataDir, port: await freePort(), process: null });
    }
    return new ChaosServers(mode, backends, databaseUrl, {
      DATABASE_URL: databaseUrl,
      FILES_DIR: path.join(root, 'files'),
    });
  }

  /** Where the devices send everything: the single server, or the proxy in front of both. */
  get url(): string {
    return this.proxy?.url ?? `http://127.0.0.1:${this.backends[0].port}`;
  }

  /** The backend (its index) the proxy hands the next request to; null without a proxy. */
  nextBackend(): number | null {
    return this.proxy?.next() ?? null;
  }

  /** Starts every backend (and the proxy in front of two). */
  async startAll() {
    for (const backend of this.backends) await this.start(backend);
    if (this.backends.length > 1) this.proxy = await startRoundRobinProxy(this.backends.map((b) => b.port));
  }

  async start(backend: Backend) {
    // Started through tsx, which compiles the server first: on a loaded two-core machine that took over 30 s.
    backend.process = await startServerProcess(backend.dataDir, backend.port, this.env, 60_000);
  }

  /** The database the servers keep, opened here to read what they finally hold (the queries speak both engines). */
  openDb(): Promise<Db> {
    return openDatabase({
      databaseUrl: this.databaseUrl,
      file: path.join(this.backends[0].dataDir, 'staff-portal.db'),
    });
  }

  /** The last lines each server printed, for a failure report. */
  output(): string[] {
    return this.backends.flatMap((b) =>
      (b.process?.output() ?? '')
        .split('\n')
        .filter(Boolean)
        .slice(-15)
        .map((line) => `${b.name}: ${line.slice(0, 300)}`),
    );
  }

  /** Kills what is still running (the end of a test file). */
  async close() {
    await this.proxy?.close();
    for (const backend of this.backends) await backend.process?.kill().catch(() => undefined);
  }
}

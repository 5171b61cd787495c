import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { SyncCollection } from '../../../schema/sync-protocol';
import { queuesBusy } from './rxdb-internals';

export type Direction = 'pull' | 'push';

/** Where each collection's pull and push handlers are, and since when (for activity()). */
export class Phases {
  private readonly phases = new Map<string, { phase: string; since: number }>();

  /** The handler is now at `what`; null when it has returned. */
  set(name: SyncCollection, direction: Direction, what: string | null): void {
    if (what) this.phases.set(`${name} ${direction}`, { phase: what, since: Date.now() });
    else this.phases.delete(`${name} ${direction}`);
  }

  /** "pull handler request 1 for 120 ms", or null when that handler is not running. */
  describe(name: SyncCollection, direction: Direction): string | null {
    const at = this.phases.get(`${name} ${direction}`);
    return at ? `${direction} handler ${at.phase} for ${Date.now() - at.since} ms` : null;
  }
}

/**
 * What each collection's replication is doing right now, for a report when sync seems stuck: RxDB's flags, which of
 * its queues are still busy, and where the pull and push handlers are and since when.
 */
export async function describeActivity<T, C>(
  replications: ReadonlyMap<SyncCollection, RxReplicationState<T, C>>,
  phases: Phases,
  leader: boolean,
): Promise<string> {
  const lines = await Promise.all(
    [...replications].map(async ([name, state]) => {
      const flags = [
        ...(await queuesBusy(state)),
        ...(['pull', 'push'] as const).map((direction) => phases.describe(name, direction)),
      ];
      return `${name}: ${flags.filter(Boolean).join(', ') || 'idle'}`;
    }),
  );
  return (leader ? '' : 'another tab replicates (decision 115); ') + lines.join('; ');
}

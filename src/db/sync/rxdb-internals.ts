import { combineLatest, filter, firstValueFrom, type BehaviorSubject } from 'rxjs';
import type { RxReplicationState } from 'rxdb/plugins/replication';

/**
 * The only module that reads RxDB's replication internals (`internalReplicationState`: its `events.active` flags and
 * its queues), which RxDB does not export as API. rxdb-internals.test.ts fails when RxDB's version changes, so each
 * function here is checked against the new version before it is trusted.
 */
export const RXDB_VERSION_CHECKED = '17.6.0';

type AnyReplication<T, C> = RxReplicationState<T, C> | undefined;

/** Whether RxDB is pushing this replication's changes now, as a flag that says when it changes; undefined before start. */
export function pushActive$<T, C>(state: AnyReplication<T, C>): BehaviorSubject<boolean> | undefined {
  return state?.internalReplicationState?.events.active.up;
}

/**
 * Resolves once the replication neither pulls (stores included) nor pushes; undefined before it has started, when
 * there is nothing to wait for.
 */
export function whenIdle<T, C>(state: AnyReplication<T, C>): Promise<void> | undefined {
  const events = state?.internalReplicationState?.events;
  if (!events) return undefined;
  return firstValueFrom(
    combineLatest([events.active.down, events.active.up]).pipe(filter(([down, up]) => !down && !up)),
    { defaultValue: undefined },
  ).then(() => undefined);
}

/** Whether a promise is still pending one macrotask from now. */
async function busy(promise: Promise<unknown> | undefined): Promise<boolean> {
  let done = false;
  void promise?.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return promise !== undefined && !done;
}

/** RxDB's own view of what the replication is doing, for a report when sync seems stuck: its flags and busy queues. */
export async function queuesBusy<T, C>(state: AnyReplication<T, C>): Promise<string[]> {
  const internal = state?.internalReplicationState;
  const flags = [
    internal?.events.active.up.getValue() && 'pushing',
    internal?.events.active.down.getValue() && 'pulling',
    (await busy(internal?.streamQueue.up)) && 'up queue busy',
    (await busy(internal?.streamQueue.down)) && 'down queue busy',
    (await busy(internal?.checkpointQueue)) && 'checkpoint queue busy',
  ];
  return flags.filter((flag): flag is string => typeof flag === 'string');
}

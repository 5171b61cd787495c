import { CHECKPOINT_ID_END, type ChangeEvent, type SyncCollection } from '../../schema/sync-protocol';
import type { PullResponse, SyncCheckpoint } from '../../schema/sync';

type Doc = Record<string, unknown>;

/** Events kept per collection at most until its next pull; past that the device pulls instead. */
const KEPT_EVENTS_MAX = 50;

/**
 * The changes the live stream carried (decision 131), kept until the collection's replication next asks for a page,
 * which is then answered from them instead of the server when they follow on from what the device holds.
 *
 * A short page (or the last page of a first fill) holds every change the user may see up to its `through`: that is how far the
 * device is sure it holds everything (its coverage). An event says it follows from `since`: when `since` is within the
 * coverage, the event's documents (each the server's current version when it was sent) bring the device up to the
 * event's checkpoint. Anything else (no coverage yet, a gap after a reconnect, a replication that pulled past the
 * coverage in full pages) answers null and the replication pulls as before.
 */
export interface DeliveredChanges {
  /** Keeps an event that carries its documents; answers whether it did. */
  keep: (event: ChangeEvent) => boolean;
  /** A page the server answered for this collection, asked for with this limit. */
  pulled: (collection: SyncCollection, page: PullResponse<Doc>, limit: number) => void;
  /** The next page from the kept events, or null to ask the server. */
  take: (collection: SyncCollection, checkpoint: SyncCheckpoint | undefined) => PullResponse<Doc> | null;
  /** Drops the kept events: the replication will ask the server anyway. */
  drop: (collection?: SyncCollection) => void;
}

interface Held {
  /** Every change up to this sequence is on the device, or null when that is not known. */
  coverage: number | null;
  events: Required<ChangeEvent>[];
}

export function deliveredChanges(): DeliveredChanges {
  const held = new Map<SyncCollection, Held>();
  const of = (collection: SyncCollection): Held => {
    let state = held.get(collection);
    if (!state) held.set(collection, (state = { coverage: null, events: [] }));
    return state;
  };
  const dropCovered = (state: Held) => {
    const coverage = state.coverage;
    if (coverage !== null) state.events = state.events.filter((event) => event.checkpoint.seq > coverage);
  };

  return {
    keep(event) {
      if (!event.documents || !event.checkpoint || event.since === undefined) return false;
      const state = of(event.collection);
      state.events.push(event as Required<ChangeEvent>);
      if (state.events.length > KEPT_EVENTS_MAX) state.events = [];
      return true;
    },
    pulled(collection, page, limit) {
      // Only the last page of a pull carries `through` as a promise (docs/sync.md): a full page may have more after it.
      if (page.through === undefined || page.documents.length >= limit) return;
      const state = of(collection);
      state.coverage = Math.max(state.coverage ?? 0, page.through);
      dropCovered(state);
    },
    take(collection, checkpoint) {
      const state = of(collection);
      dropCovered(state);
      const coverage = state.coverage;
      // During a fill, or when the replication holds pages the coverage does not know of (a kept event could be older
      // than what they brought), only the server can answer. No checkpoint at all is an empty first page's: RxDB keeps
      // none from it, and the coverage says what that page proved.
      if (checkpoint?.before || coverage === null || (checkpoint && checkpoint.seq > coverage)) {
        state.events = [];
        return null;
      }
      if (state.events.length === 0 || state.events[0].since > coverage) {
        state.events = [];
        return null;
      }
      const documents = new Map<unknown, Doc>();
      let through = coverage;
      while (state.events.length > 0 && state.events[0].since <= through) {
        const event = state.events.shift()!;
        for (const doc of event.documents) documents.set(doc.id, doc);
        through = Math.max(through, event.checkpoint.seq);
      }
      state.coverage = through;
      return { documents: [...documents.values()], checkpoint: { seq: through, id: CHECKPOINT_ID_END, before: null } };
    },
    drop(collection) {
      for (const [name, state] of held) if (!collection || name === collection) state.events = [];
    },
  };
}

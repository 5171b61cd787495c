import { AddendumBodySchema, CreateHandoverBodySchema, HANDOVER_MESSAGES } from '../../../schema/handovers';
import type { HandoverDoc } from '../../../schema/sync';
import { forbidden } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import type { SyncHandler } from '../sync/sync.service';
import {
  addAddendum,
  createHandover,
  findHandoverDoc,
  listHandoverDocsSince,
  markHandoverRead,
} from './handovers.service';

/** The addenda a pushed document carries that the stored note has not: appended by the pusher. */
function newAddenda(doc: Record<string, unknown>, master: HandoverDoc): unknown[] {
  const known = new Set(master.addenda.map((a) => a.id));
  const pushed = Array.isArray(doc.addenda) ? (doc.addenda as unknown[]) : []; // checked entry by entry below
  return pushed.filter((a) => !(typeof a === 'object' && a !== null && known.has(String((a as { id?: unknown }).id))));
}

/**
 * Handover notes (decision 138): staff of a house and admins pull its notes, tombstones for hidden notes and for the
 * houses a user left. A device creates a note, appends addenda and marks it read, through the services REST uses.
 * No assumed-master check: each push adds what is new (the user's own read, addenda by id), so concurrent readers and
 * writers of addenda never conflict; the note's words change only through REST, in its first hour.
 */
export const handoversSync: SyncHandler<HandoverDoc> = {
  pull: async (deps, actor, seq, id, limit) => await listHandoverDocsSince(deps, actor, seq, id, limit),
  findMaster: (deps, id, actor) => findHandoverDoc(deps, id, actor),
  lastPushWins: true,
  async apply(deps, actor, doc, master, meta) {
    if (!master) {
      if (doc._deleted) return; // written and dropped on the device before it was sent
      const body = parseInput(CreateHandoverBodySchema, { ...doc });
      await createHandover(deps, actor, String(doc.house), body, meta);
      return;
    }
    if (doc._deleted) return forbidden(HANDOVER_MESSAGES.pushedDelete);
    for (const addendum of newAddenda(doc, master)) {
      await addAddendum(deps, actor, doc.id, parseInput(AddendumBodySchema, addendum), meta);
    }
    if (typeof doc.readAt === 'number' && master.readAt === null) {
      await markHandoverRead(deps, actor, doc.id, doc.readAt, meta);
    }
  },
};

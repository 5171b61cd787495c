import { z } from 'zod';
import { RESIDENT_MESSAGES, ResidentEditSchema } from '../../../schema/residents';
import {
  HandoverViewPushSchema,
  ResidentDocSchema,
  SYNC_WRITABLE_FIELDS,
  ViewedAtSchema,
  type ResidentDoc,
  type ResidentViewDoc,
} from '../../../schema/sync';
import { badRequest, forbidden } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import { findHandoverViewDoc, listHandoverViewDocsSince, recordHandoverView } from '../handovers/handovers.service';
import type { SyncHandler } from '../sync/sync.service';
import {
  editResidentFromDevice,
  findResidentDoc,
  findResidentViewDoc,
  listResidentDocsSince,
  listResidentViewDocsSince,
  recordResidentView,
} from './residents.service';

/** The state a pushed edit was made from: the profile's fields of the document as the device had it. */
const EditBaseSchema = ResidentDocSchema.omit({
  id: true,
  createdBy: true,
  createdAt: true,
  updatedAt: true,
  _deleted: true,
});

/**
 * Every active staff member pulls every active resident, bank and agency staff only their houses' (decision 147); an
 * archived one, or one not theirs, arrives as a tombstone with no content.
 * Devices push edits of a profile's text and houses (decision 120): the server merges each field by field from the
 * state it was made from, through the service the REST edit uses. Adding, archiving and the photo go through REST.
 */
export const residentsSync: SyncHandler<ResidentDoc> = {
  // Not the same for everyone: bank and agency staff pull their houses' residents only (decision 147).
  pull: async (deps, actor, seq, id, limit) => await listResidentDocsSince(deps, actor, seq, id, limit),
  findMaster: (deps, id, actor) => findResidentDoc(deps, id, actor),
  mergesFields: true,
  mergesOnServer: true,
  async apply(deps, actor, doc, master, meta, base) {
    if (!master) return badRequest(RESIDENT_MESSAGES.addOnline);
    if (doc._deleted) return forbidden(RESIDENT_MESSAGES.archiveForbidden);
    const fields: readonly string[] = SYNC_WRITABLE_FIELDS.residents;
    const next = parseInput(ResidentEditSchema, Object.fromEntries(fields.map((field) => [field, doc[field]])));
    // A row without the state it started from (not sent by the app) writes its fields onto the stored version.
    const from = parseInput(EditBaseSchema, base ?? master);
    return await editResidentFromDevice(deps, actor, doc.id, { base: from, next }, meta);
  },
};

const PushedViewSchema = z.object({
  id: z.uuid({ message: 'id must be a UUID' }),
  residentId: z.string({ message: 'residentId is required' }).min(1, 'residentId is required').max(100),
  viewedAt: ViewedAtSchema,
});

/** Two lists of pulled rows, each in (seq, id) order, merged in that order and cut at `limit`. */
function mergeInOrder<D extends { id: string }>(
  a: { seq: number; doc: D }[],
  b: { seq: number; doc: D }[],
  limit: number,
): { seq: number; doc: D }[] {
  const before = (x: { seq: number; doc: D }, y: { seq: number; doc: D }) =>
    x.seq - y.seq || (x.doc.id < y.doc.id ? -1 : x.doc.id > y.doc.id ? 1 : 0);
  return [...a, ...b].sort(before).slice(0, limit);
}

/**
 * Openings pushed by the device that showed them (offline ones when the connection returns): of a full profile, or of
 * a house's handover notes (a row with `handoverIds`, decision 142), each recorded once and written to the audit log
 * by its feature's service. Only the viewer pulls them back, as tombstones.
 */
export const residentViewsSync: SyncHandler<ResidentViewDoc> = {
  pull: async (deps, actor, seq, id, limit) =>
    mergeInOrder(
      await listResidentViewDocsSince(deps, actor, seq, id, limit),
      await listHandoverViewDocsSince(deps, actor, seq, id, limit),
      limit,
    ),
  findMaster: async (deps, id, actor) =>
    (await findResidentViewDoc(deps, id, actor)) ?? (await findHandoverViewDoc(deps, id, actor)),
  async apply(deps, actor, doc, master, meta) {
    if (master || doc._deleted) return; // already recorded, or nothing to record
    if (doc.handoverIds !== undefined) {
      await recordHandoverView(deps, actor, parseInput(HandoverViewPushSchema, doc), meta);
      return;
    }
    await recordResidentView(deps, actor, parseInput(PushedViewSchema, doc), meta);
  },
};

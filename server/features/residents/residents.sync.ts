import { z } from 'zod';
import type { ResidentDoc, ResidentViewDoc } from '../../../schema/sync';
import { parseInput } from '../../lib/http';
import type { SyncHandler } from '../sync/sync.service';
import {
  findResidentViewDoc,
  listResidentDocsSince,
  listResidentViewDocsSince,
  recordResidentView,
} from './residents.service';

/**
 * Residents replicate one way (pull only): writes go through the REST calls, which carry the photo. Every
 * active staff member pulls every active resident; an archived one arrives as a tombstone with no content.
 */
export const residentsSync: SyncHandler<ResidentDoc> = {
  pull: (deps, _actor, seq, id, limit) => listResidentDocsSince(deps, seq, id, limit),
};

const PushedViewSchema = z.object({
  id: z.uuid({ message: 'id must be a UUID' }),
  residentId: z.string({ message: 'residentId is required' }).min(1, 'residentId is required').max(100),
  viewedAt: z.number({ message: 'viewedAt must be a time in milliseconds' }).int().nonnegative(),
});

/**
 * Openings of a full profile, pushed by the device that showed it (offline ones when the connection returns):
 * the server records each once and writes the audit entry. Only the viewer pulls them back, as tombstones.
 */
export const residentViewsSync: SyncHandler<ResidentViewDoc> = {
  pull: (deps, actor, seq, id, limit) => listResidentViewDocsSince(deps, actor, seq, id, limit),
  findMaster: (deps, id, actor) => findResidentViewDoc(deps, id, actor),
  apply(deps, actor, doc, master, meta) {
    if (master || doc._deleted) return; // already recorded, or nothing to record
    recordResidentView(deps, actor, parseInput(PushedViewSchema, doc), meta);
  },
};

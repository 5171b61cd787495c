import { z } from 'zod';
import { ALERT_MESSAGES, AcknowledgeBodySchema } from '../../../schema/alerts';
import { MENTION_MESSAGES } from '../../../schema/mentions';
import { acknowledgementId, type AcknowledgementDoc } from '../../../schema/sync';
import type { AppDeps, SessionUser } from '../../lib/context';
import { badRequest, forbidden, notFound } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import { findMentionEntryDoc, isMentionEntryId, markMentionViewed } from '../mentions/mentions.service';
import type { PushedDoc, SyncHandler } from '../sync/sync.service';
import {
  acknowledgeRow,
  findAcknowledgementDoc,
  listAcknowledgementDocsOfUsersSince,
  listAcknowledgementDocsSince,
  markAlertsViewed,
} from './alerts.service';

const PostIdSchema = z.string({ message: 'postId is required' }).min(1, 'postId is required').max(100);

/**
 * A user's alert list (id `${postId}:${userId}`) replicates to that user only. The server makes the
 * documents, for urgent posts and posts requiring confirmation (decision 136); the user sets `acknowledgedAt`
 * (acknowledgeRow: the alert's acknowledgement or the confirmation, as REST, with the device's `writtenAt`) and
 * `viewedAt` (the bell), each once, with the server's time. Only that user writes them, so the last push wins; withdrawing either answers the
 * master, and a document the server never made answers a tombstone. The user's mention entries travel here too
 * (id `mention:…`, decision 144): the user sets only their `viewedAt`.
 */
export const acknowledgementsSync: SyncHandler<AcknowledgementDoc> = {
  pull: async (deps, actor, seq, id, limit) => await listAcknowledgementDocsSince(deps, actor, seq, id, limit),
  pullOfUsers: (deps, userIds, seq) => listAcknowledgementDocsOfUsersSince(deps, userIds, seq),
  findMaster: (deps, id, actor) =>
    isMentionEntryId(id) ? findMentionEntryDoc(deps, id, actor) : findAcknowledgementDoc(deps, id, actor),
  lastPushWins: true,
  async apply(deps, actor, doc, master, meta) {
    if (isMentionEntryId(doc.id)) return applyMentionEntry(deps, actor, doc, master);
    const { postId, acknowledgedAt, viewedAt, writtenAt } = doc as Partial<AcknowledgementDoc>;
    const post = parseInput(PostIdSchema, postId);
    if (doc.id !== acknowledgementId(post, actor.id)) forbidden(ALERT_MESSAGES.ownOnly);
    if (!master || master._deleted) return notFound(ALERT_MESSAGES.alertNotFound);
    const withdrawn =
      (master.acknowledgedAt !== null && acknowledgedAt == null) || (master.viewedAt !== null && viewedAt == null);
    if (doc._deleted || withdrawn) badRequest(ALERT_MESSAGES.cannotWithdraw);
    if (acknowledgedAt != null && master.acknowledgedAt === null) {
      await acknowledgeRow(deps, actor, post, meta, parseInput(AcknowledgeBodySchema, { writtenAt }).writtenAt);
    } else if (viewedAt != null && master.viewedAt === null) await markAlertsViewed(deps, actor, [post]);
  },
};

/** A mention entry pushed back: the user's own, seen in the bell; nothing else of it is theirs to change. */
async function applyMentionEntry(
  deps: AppDeps,
  actor: SessionUser,
  doc: PushedDoc,
  master: AcknowledgementDoc | null,
): Promise<void> {
  if (!master || master._deleted) return notFound(MENTION_MESSAGES.notFound);
  const { viewedAt } = doc as Partial<AcknowledgementDoc>;
  if (doc._deleted || (master.viewedAt !== null && viewedAt == null)) badRequest(ALERT_MESSAGES.cannotWithdraw);
  if (viewedAt != null && master.viewedAt === null) await markMentionViewed(deps, actor, doc.id);
}

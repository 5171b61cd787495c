import {
  mergeResidentEdit,
  RESIDENT_FIELD_LABELS,
  RESIDENT_FIELDS,
  type ResidentEdit,
  type ResidentField,
  type ResidentFields,
  type ResidentMerge,
} from '../../../schema/residents';
import type { FieldMerge } from '../../../schema/sync';
import type { ResidentLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/** The editable state of a local profile. */
function fieldsOf(resident: ResidentLocal): ResidentFields {
  return Object.fromEntries(RESIDENT_FIELDS.map((field) => [field, resident[field]])) as ResidentFields; // every key of ResidentFields is set
}

/**
 * Saves the form's edit of a profile on the device (decision 120): only the fields changed from what the form showed
 * (`shown`) are written, onto the profile as the device has it now, so a colleague's change that arrived while the
 * form was open stays; the replication sends it at once or when back online, and the server merges it the same way.
 * Answers the merge (what someone else changed meanwhile, to tell), or null when the profile was archived meanwhile.
 */
export async function saveResidentEdit(
  db: UserDatabase,
  shown: ResidentLocal,
  edit: ResidentEdit,
): Promise<ResidentMerge | null> {
  const doc = await db.residents.findOne(shown.id).exec();
  if (!doc) return null;
  const merge = mergeResidentEdit(fieldsOf(shown), edit, fieldsOf(doc.toJSON() as ResidentLocal)); // toJSON gives the document without RxDB's meta
  if (merge.mine.length === 0) return merge;
  const mine = Object.fromEntries(merge.mine.map((field) => [field, edit[field as keyof ResidentEdit]]));
  await doc.incrementalModify((latest) => ({ ...latest, ...mine, localPending: true }));
  return merge;
}

/** "A", "A and B", "A, B and C": fields by their labels. */
function labels(fields: readonly string[]): string {
  const names = fields.map((field) => RESIDENT_FIELD_LABELS[field as ResidentField] ?? field);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * What to tell the later writer of a merged edit (decision 120): whose fields were whose, and where both changed the
 * same one, that theirs was kept over the colleague's (which the history still shows).
 */
export function describeMerge(name: string, merge: FieldMerge, when: 'offline' | 'editing'): string {
  const during = when === 'offline' ? 'while you were offline' : 'while you were editing';
  const who = name || 'this resident';
  const applied = merge.mine.length > 0 ? `; your changes to ${labels(merge.mine)} were applied` : '';
  const both =
    merge.both.length > 0
      ? ` You both changed ${labels(merge.both)}: your version was kept, and theirs is in the profile's history.`
      : '';
  return `Someone else changed ${labels(merge.theirs)} of ${who} ${during}${applied}.${both}`;
}

import {
  RESIDENT_TEXT_FIELDS,
  ResidentEditAnswerSchema,
  ResidentHistorySchema,
  ResidentViewSchema,
  type ResidentTextField,
  type ResidentVersionView,
  type ResidentView,
} from '../../../schema/residents';
import type { FieldMerge } from '../../../schema/sync';
import type { UserDatabase } from '../../db/database';
import { api } from '../../lib/api';
import { copyOfFile } from '../../lib/file-copy';
import type { PendingPhoto } from './pending-photos';

/** What the resident form holds: text as typed, the date as the date input gives it ('' for none). */
export type ResidentFormValues = { [K in ResidentTextField]: string } & {
  name: string;
  likeToBeCall: string;
  dateOfBirth: string;
  houseTags: string[];
};

/**
 * The multipart form of a new profile (docs/api-residents.md): every text field, houseTags as a JSON string, the photo if
 * one was chosen. Adding goes through REST, online only, because of the photo; the profile comes back to every
 * device, this one included, through sync (decisions 50 and 120).
 */
export function residentFormData(values: ResidentFormValues, photo: File | null): FormData {
  const form = new FormData();
  form.append('name', values.name);
  form.append('likeToBeCall', values.likeToBeCall);
  form.append('dateOfBirth', values.dateOfBirth);
  for (const field of RESIDENT_TEXT_FIELDS) form.append(field, values[field]);
  form.append('houseTags', JSON.stringify(values.houseTags));
  if (photo) form.append('photo', photo);
  return form;
}

export async function createResident(values: ResidentFormValues, photo: File | null): Promise<ResidentView> {
  return ResidentViewSchema.parse(await api.post('/api/residents', residentFormData(values, photo)));
}

/**
 * Sends a profile's new photo (decision 123): only the photo, so the other fields stay as the server has them, merged
 * from the version the form showed; its key makes a second sending after a lost answer store nothing more. Answers
 * the merge when someone else had changed the profile since.
 */
export async function sendResidentPhoto(photo: PendingPhoto): Promise<FieldMerge | undefined> {
  const form = new FormData();
  // Sent from a copy: a chosen file changed on the device meanwhile fails to read here, not as a lost connection.
  form.append('photo', new File([await copyOfFile(photo.blob, photo.name)], photo.name, { type: photo.blob.type }));
  form.append('photoKey', photo.id);
  form.append('baseUpdatedAt', new Date(photo.baseUpdatedAt).toISOString());
  const answer = ResidentEditAnswerSchema.parse(
    await api.put(`/api/residents/${encodeURIComponent(photo.residentId)}`, form),
  );
  return answer.merge;
}

export async function archiveResident(id: string): Promise<void> {
  await api.post(`/api/residents/${encodeURIComponent(id)}/archive`);
}

/** The history of a profile (online only: versions are not kept on the device, decision 53). */
export async function fetchResidentHistory(id: string): Promise<ResidentVersionView[]> {
  return ResidentHistorySchema.parse(await api.get(`/api/residents/${encodeURIComponent(id)}/history`));
}

/**
 * Notes that this device showed a full profile: a residentViews document the replication pushes (at once, or
 * when the connection returns); the server writes the audit entry (decision 52).
 */
export async function recordResidentView(db: UserDatabase, residentId: string): Promise<void> {
  await db.residentViews.insert({ id: crypto.randomUUID(), residentId, viewedAt: Date.now(), localPending: true });
}

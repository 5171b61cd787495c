import type { UploadView } from '../../../schema/uploads';
import { api } from '../../lib/api';
import { copyOfFile } from '../../lib/file-copy';

/** POST /api/uploads with one file in the field `file`; the answer names the stored upload. */
export async function uploadFile(file: Blob, name: string): Promise<UploadView> {
  const form = new FormData();
  // Sent from a copy: a chosen file changed on the device meanwhile fails to read here, not as a lost connection.
  form.append('file', await copyOfFile(file, name), name);
  // The answer's schema loads first (decision 113): if its code cannot be fetched, nothing has been stored yet.
  const { UploadViewSchema } = await import('../../../schema/uploads');
  const answer = await api.post('/api/uploads', form);
  return UploadViewSchema.parse(answer);
}

import type { UploadView } from '../../../schema/uploads';
import { api } from '../../lib/api';

/** POST /api/uploads with one file in the field `file`; the answer names the stored upload. */
export async function uploadFile(file: Blob, name: string): Promise<UploadView> {
  const form = new FormData();
  form.append('file', file, name);
  // The answer's schema loads first (decision 113): if its code cannot be fetched, nothing has been stored yet.
  const { UploadViewSchema } = await import('../../../schema/uploads');
  const answer = await api.post('/api/uploads', form);
  return UploadViewSchema.parse(answer);
}

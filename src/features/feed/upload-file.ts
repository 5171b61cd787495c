import type { UploadView } from '../../../schema/uploads';
import { api } from '../../lib/api';

/** POST /api/uploads with one file in the field `file`; the answer names the stored upload. */
export async function uploadFile(file: Blob, name: string): Promise<UploadView> {
  const form = new FormData();
  form.append('file', file, name);
  const [{ UploadViewSchema }, answer] = await Promise.all([
    import('../../../schema/uploads'),
    api.post('/api/uploads', form),
  ]);
  return UploadViewSchema.parse(answer);
}

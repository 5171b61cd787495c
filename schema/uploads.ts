import { z } from 'zod';

export * from './upload-rules';

/** Answer of POST /api/uploads and one entry of a post's attachments. */
export const UploadViewSchema = z.object({
  id: z.string(),
  /** Where signed-in users fetch the file: /api/uploads/{id}. */
  url: z.string(),
  originalName: z.string(),
  /** The stored, safe content type (after re-encoding for images). */
  fileType: z.string(),
  fileSize: z.number().int().nonnegative(),
  kind: z.enum(['image', 'file']),
});
export type UploadView = z.infer<typeof UploadViewSchema>;

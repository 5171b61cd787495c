import { FileText } from 'lucide-react';
import type { Attachment } from '../../../schema/posts';
import { formatFileSize } from '../../../schema/format';

/**
 * A post's files, each a download under its original name with its size (docs/behaviour.md, "Posts and categories").
 */
export function PostAttachments({ attachments }: { attachments: readonly Attachment[] }) {
  if (attachments.length === 0) return null;
  return (
    <ul className="post-attachments" aria-label="Attachments">
      {attachments.map((file) => (
        <li key={file.id}>
          <a className="post-attachment" href={file.url} download={file.originalName}>
            <FileText aria-hidden size={20} />
            <span className="post-attachment-name">{file.originalName}</span>
            <span className="post-attachment-size">{formatFileSize(file.fileSize)}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

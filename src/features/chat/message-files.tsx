import { Clock, FileText } from 'lucide-react';
import type { Attachment } from '../../../schema/posts';
import { cardPictureUrl } from '../../../schema/upload-rules';
import { formatFileSize } from '../../../schema/format';
import type { WaitingMessage } from './waiting-messages';

/**
 * A message's photos, as thumbnails that open full size, and its files, as links by name and size (decision 150).
 * Both are the server's addresses, which only the conversation's members can read.
 */
export function MessageFiles({
  images,
  attachments,
}: {
  images: readonly string[] | undefined;
  attachments: readonly Attachment[] | undefined;
}) {
  if (!images?.length && !attachments?.length) return null;
  return (
    <div className="chat-files">
      {images?.map((url, index) => (
        <a
          key={url}
          href={url}
          target="_blank"
          rel="noopener noreferrer"
          className="chat-photo-link"
          aria-label={`Open picture ${index + 1} full size`}
        >
          <img src={cardPictureUrl(url)} alt="" className="chat-photo" loading="lazy" />
        </a>
      ))}
      {attachments?.map((file) => (
        <a key={file.id} href={file.url} target="_blank" rel="noopener noreferrer" className="chat-file-link">
          <FileText aria-hidden size={14} />
          {file.originalName} ({formatFileSize(file.fileSize)})
        </a>
      ))}
    </div>
  );
}

/** A message still waiting for its files to upload: its words, the files' names, and what holds it. */
export function WaitingMessageItem({ message, onDiscard }: { message: WaitingMessage; onDiscard: () => void }) {
  return (
    <li className="chat-message chat-message-own">
      {message.content ? <p className="chat-bubble">{message.content}</p> : null}
      <ul className="chat-waiting-files" aria-label="Files waiting to upload">
        {message.files.map((file, index) => (
          <li key={`${index}:${file.name}`}>{file.name}</li>
        ))}
      </ul>
      <span className="chat-meta">
        {message.error ? (
          <>
            <span role="alert">{message.error}</span>
            <button type="button" className="chat-seen chat-seen-button" onClick={onDiscard}>
              Discard
            </button>
          </>
        ) : (
          <span className="chat-pending">
            <Clock aria-hidden size={12} />
            Waiting to upload
          </span>
        )}
      </span>
    </li>
  );
}

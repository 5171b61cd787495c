import { CloudUpload, FileText, Image as ImageIcon, TriangleExclamationPoint } from 'lucide-react';
import { useId } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { formatDateTime, formatFileSize } from '../../../schema/format';
import { categoryLabel } from '../../../schema/post-rules';
import { roleLabel } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { cx } from '../../lib/cx';
import { isImageName } from './composer-files';
import { discardPendingPost, dropRefusedFile, type PendingPost } from './pending-files';
import { PostText } from '../../components/post-text';

/**
 * A post whose files have not reached the server yet (written offline). It lives in the pending-files
 * store, not in the synced database, and turns into a normal card once its files are uploaded.
 */
export function WaitingPostCard({ post, user }: { post: PendingPost; user: CurrentUser }) {
  const id = useId();
  const refused = post.error ? post.files[post.error.fileIndex] : undefined;
  const uploaded = post.files.filter((f) => f.uploaded).length;
  return (
    <article
      className={cx('card', 'post-card', 'post-card-waiting', post.isUrgent && 'post-card-urgent')}
      aria-labelledby={`${id}-author`}
    >
      {post.isUrgent ? (
        <div className="urgent-banner">
          <TriangleExclamationPoint aria-hidden size={16} />
          URGENT POST
        </div>
      ) : null}
      <header className="post-head">
        <UserAvatar user={user} size={44} />
        <div className="post-byline">
          <h3 className="post-author" id={`${id}-author`}>
            {[user.firstName, user.lastName].filter(Boolean).join(' ')}
          </h3>
          <div className="post-meta">
            <span className="post-role">{roleLabel(user.role)}</span>
            <Badge tone="brand">{categoryLabel(post.category)}</Badge>
            <time dateTime={new Date(post.createdAt).toISOString()} className="post-time">
              {formatDateTime(post.createdAt)}
            </time>
            <span className="pending-marker">
              <CloudUpload aria-hidden size={12} />
              Waiting to upload
            </span>
          </div>
        </div>
      </header>
      <PostText text={post.content} />
      <ul className="waiting-files" aria-label="Files waiting to upload">
        {post.files.map((file, index) => (
          <li key={`${file.name}-${index}`} className={cx('waiting-file', file.uploaded && 'waiting-file-done')}>
            {isImageName(file.name) ? <ImageIcon aria-hidden size={16} /> : <FileText aria-hidden size={16} />}
            <span className="waiting-file-name">{file.name}</span>
            <span className="waiting-file-size">{formatFileSize(file.size)}</span>
          </li>
        ))}
      </ul>
      <p className="waiting-note" role="status">
        {uploaded > 0 ? `${uploaded} of ${post.files.length} files uploaded. ` : ''}
        This post will be shared when its files have been uploaded.
      </p>
      {post.error && refused ? (
        <div className="waiting-error" role="alert">
          <p>
            <strong>{refused.name}</strong> could not be uploaded: {post.error.message}
          </p>
          <div className="waiting-actions">
            <Button size="sm" variant="outline" onClick={() => void dropRefusedFile(post.id)}>
              Post without this file
            </Button>
            <Button size="sm" variant="destructive" onClick={() => void discardPendingPost(post.id)}>
              Discard post
            </Button>
          </div>
        </div>
      ) : null}
    </article>
  );
}

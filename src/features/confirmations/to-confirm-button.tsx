import { FileCheck } from 'lucide-react';
import { useNavigate } from 'react-router-dom';
import type { CurrentUser } from '../../../schema/auth';
import { formatDate } from '../../../schema/format';
import { categoryLabel } from '../../../schema/post-rules';
import { CountBadge } from '../../components/ui/count-badge';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../components/ui/dropdown-menu';
import { useLocalStore } from '../../db/local-store-state';
import { useOutstandingPosts } from './use-confirmations';
import './confirmations.css';

/**
 * "To confirm" in the header (docs/behaviour.md, "Read and confirm"): the count of posts the user still has to
 * confirm, from the local database so it holds offline (decision 137); it lists them, the earliest due first, and
 * choosing one shows its post in the feed.
 */
export function ToConfirmButton({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const outstanding = useOutstandingPosts(store?.db ?? null, user.id);
  const navigate = useNavigate();
  const count = outstanding.length;
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        className="header-icon-button to-confirm-button"
        aria-label={count > 0 ? `To confirm, ${count} post${count === 1 ? '' : 's'}` : 'To confirm'}
      >
        <span className="chat-button-icon">
          <FileCheck aria-hidden size={20} />
          <CountBadge count={count} className="count-badge-corner" />
        </span>
        <span className="to-confirm-text">To confirm</span>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="bell-menu">
        <DropdownMenuLabel>To confirm</DropdownMenuLabel>
        <DropdownMenuSeparator />
        {count === 0 ? (
          <p className="bell-empty muted">Nothing to confirm</p>
        ) : (
          outstanding.map(({ post, confirmBy, overdue }) => (
            <DropdownMenuItem
              key={post.id}
              className="bell-item to-confirm-item"
              onSelect={() => navigate(`/?highlightPost=${encodeURIComponent(post.id)}`)}
            >
              <span className="bell-item-text">
                <span className="bell-item-content">{post.content}</span>
                <span className={overdue ? 'to-confirm-overdue' : 'muted'}>
                  {categoryLabel(post.category)}
                  {confirmBy
                    ? ` · ${overdue ? 'Overdue, was due' : 'Due'} ${formatDate(`${confirmBy}T12:00:00`)}`
                    : ' · No due date'}
                </span>
              </span>
            </DropdownMenuItem>
          ))
        )}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

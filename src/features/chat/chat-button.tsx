import { useSetAtom } from 'jotai';
import { MessageCircle } from 'lucide-react';
import type { ComponentProps } from 'react';
import { CountBadge } from '../../components/ui/count-badge';
import { useLocalStore } from '../../db/local-store-state';
import { cx } from '../../lib/cx';
import { chatOpenAtom } from './chat-state';
import { useUnreadChatCount } from './use-chat';

type Variant = 'header' | 'sidebar' | 'menu';

const classes: Record<Variant, string> = {
  header: 'header-icon-button chat-header-button',
  sidebar: 'btn btn-outline btn-md sidebar-button',
  menu: 'sheet-item',
};

/**
 * The Chat button with its unread badge (docs/behaviour.md, "Chat"): in the header on mobile, the sidebar and the menu.
 */
export function ChatButton({
  variant,
  onClick,
  alwaysInHeader = false,
  ...props
}: {
  variant: Variant;
  /** Screens without the sidebar keep the header's Chat button on large screens too. */
  alwaysInHeader?: boolean;
} & Omit<ComponentProps<'button'>, 'children' | 'className'>) {
  const store = useLocalStore();
  const unread = useUnreadChatCount(store?.db ?? null, store?.userId ?? '');
  const open = useSetAtom(chatOpenAtom);
  const label = unread > 0 ? `Chat, ${unread} unread` : 'Chat';
  return (
    <button
      type="button"
      className={cx(classes[variant], alwaysInHeader && 'chat-header-button-always')}
      aria-label={label}
      onClick={(event) => {
        onClick?.(event);
        open(true);
      }}
      {...props}
    >
      <span className="chat-button-icon">
        <MessageCircle aria-hidden size={variant === 'header' ? 20 : 18} />
        {variant === 'header' ? <CountBadge count={unread} className="count-badge-corner" /> : null}
      </span>
      {variant !== 'header' ? (
        <>
          Chat
          <CountBadge count={unread} />
        </>
      ) : null}
    </button>
  );
}

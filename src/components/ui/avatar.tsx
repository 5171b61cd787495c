import { Avatar as AvatarPrimitive } from 'radix-ui';
import { avatarName, initials } from '../../../schema/format';
import { cx } from '../../lib/cx';

/** Dark enough for white initials (contrast at least 4.5:1). */
const COLOURS = ['#4C307D', '#1D4ED8', '#047857', '#B45309', '#BE123C', '#6D28D9', '#0E7490', '#4D7C0F'];

function colourFor(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return COLOURS[hash % COLOURS.length];
}

export interface AvatarUser {
  firstName?: string | null;
  lastName?: string | null;
  profileImageUrl?: string | null;
}

/**
 * The user's picture, or their initials on a coloured circle drawn here, never by an external initials service
 * (docs/behaviour.md, "Profile and files"; nothing leaves the app's own origin). Decorative: the name is always written
 * beside it.
 */
export function UserAvatar({ user, size = 40, className }: { user: AvatarUser; size?: number; className?: string }) {
  const name = avatarName(user);
  return (
    <AvatarPrimitive.Root className={cx('avatar', className)} style={{ width: size, height: size }} aria-hidden>
      {user.profileImageUrl ? (
        <AvatarPrimitive.Image className="avatar-image" src={user.profileImageUrl} alt="" />
      ) : null}
      <AvatarPrimitive.Fallback
        className="avatar-fallback"
        style={{ background: colourFor(name), fontSize: Math.round(size * 0.4) }}
      >
        {initials(user)}
      </AvatarPrimitive.Fallback>
    </AvatarPrimitive.Root>
  );
}

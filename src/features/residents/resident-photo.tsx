import { UserAvatar } from '../../components/ui/avatar';
import type { ResidentLocal } from '../../db/collections';

/** The resident's photo, or initials drawn from the name; decorative, the name is always written beside it. */
export function ResidentPhoto({
  resident,
  size,
}: {
  resident: Pick<ResidentLocal, 'name' | 'photoUrl'>;
  size: number;
}) {
  const words = resident.name.trim().split(/\s+/);
  const person = {
    firstName: words[0] ?? '',
    lastName: words.length > 1 ? words[words.length - 1] : '',
    profileImageUrl: resident.photoUrl,
  };
  return <UserAvatar user={person} size={size} className="resident-photo" />;
}

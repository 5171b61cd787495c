import { Camera } from 'lucide-react';
import { useId, useRef, useState, type ChangeEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { isCurrentUser } from '../../../schema/auth-rules';
import {
  checkProfilePicture,
  PROFILE_PICTURE_FIELD,
  PROFILE_PICTURE_MESSAGES as M,
} from '../../../schema/profile-picture';
import { buttonClass } from '../../components/ui/button';
import { cx } from '../../lib/cx';
import { api, isUnauthorizedError, NetworkError, serverMessageOf } from '../../lib/api';
import { toast } from '../../lib/toast';
import { setCurrentUser } from './current-user';
import { endLostSession } from './session';
import './profile.css';

/** POST /api/auth/profile-picture with the multipart field profilePicture; answers the updated current user. */
async function uploadProfilePicture(file: File) {
  const form = new FormData();
  form.append(PROFILE_PICTURE_FIELD, file);
  const user = await api.post('/api/auth/profile-picture', form);
  if (!isCurrentUser(user)) throw new Error('The picture was saved, but the answer had an unexpected shape');
  return user;
}

/**
 * The profile-picture uploader of Your Profile (docs/behaviour.md, "Profile and files"): checks size and type first,
 * then uploads; the header and every avatar of the user show the new picture at once, with a toast.
 */
export function ProfilePictureUploader({ className }: { className?: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file || busy) return;
    const problem = checkProfilePicture(file);
    if (problem === 'tooLarge') {
      toast({ title: M.tooLargeTitle, description: M.tooLarge, variant: 'destructive' });
      return;
    }
    if (problem === 'notImage') {
      toast({ title: M.notImageTitle, description: M.notImage, variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      setCurrentUser(await uploadProfilePicture(file));
      toast({ title: 'Success', description: M.updated });
    } catch (error) {
      if (isUnauthorizedError(error)) {
        endLostSession(navigate);
      } else {
        console.error('Could not update the profile picture', error);
        const detail =
          error instanceof NetworkError
            ? 'Unable to connect to the server. Please try again.'
            : serverMessageOf(error, '');
        toast({ title: 'Error', description: M.failed, detail: detail || undefined, variant: 'destructive' });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={cx('profile-picture-uploader', className)}>
      <input
        ref={input}
        id={id}
        type="file"
        accept="image/*"
        className="visually-hidden"
        aria-label="Change profile picture"
        disabled={busy}
        onChange={(event) => void choose(event)}
      />
      <button
        type="button"
        className={buttonClass('outline', 'sm', 'profile-picture-button')}
        disabled={busy}
        onClick={() => input.current?.click()}
      >
        <Camera aria-hidden size={16} />
        {busy ? 'Uploading...' : 'Change Picture'}
      </button>
    </div>
  );
}

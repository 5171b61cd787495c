import { LIMITS } from './constants';

/** The multipart field of POST /api/auth/profile-picture (docs/api-suggestions-audit.md). */
export const PROFILE_PICTURE_FIELD = 'profilePicture';

/** Edge length of the stored square picture; smaller pictures are cropped square but never enlarged. */
export const PROFILE_PICTURE_SIZE = 512;

/**
 * The titles and texts of the picture checks, shown by the client and sent by the server
 * (docs/behaviour.md, "Profile and files").
 */
export const PROFILE_PICTURE_MESSAGES = {
  tooLargeTitle: 'File too large',
  tooLarge: 'Please select an image smaller than 5MB.',
  notImageTitle: 'Invalid file type',
  notImage: 'Please select an image file.',
  missing: 'Please select an image file.',
  updated: 'Profile picture updated successfully!',
  failed: 'Failed to update profile picture. Please try again.',
} as const;

export type ProfilePictureProblem = 'tooLarge' | 'notImage';

/**
 * The client's check before uploading (docs/behaviour.md, "Profile and files"); the server checks size and content
 * again.
 */
export function checkProfilePicture(file: { size: number; type: string }): ProfilePictureProblem | null {
  if (file.size > LIMITS.profilePictureMaxBytes) return 'tooLarge';
  if (!file.type.startsWith('image/')) return 'notImage';
  return null;
}

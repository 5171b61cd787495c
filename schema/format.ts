/** Display helpers (docs/behaviour.md, "Messages and formats"), used by both sides. */

interface NameParts {
  firstName?: string | null;
  lastName?: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** dd/MM/yyyy HH:mm in local time (docs/behaviour.md, "Messages and formats"). */
export function formatDateTime(value: Date | string | number): string {
  const d = new Date(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** dd/MM/yyyy in local time. */
export function formatDate(value: Date | string | number): string {
  return formatDateTime(value).slice(0, 10);
}

/** HH:mm, for chat messages (docs/behaviour.md, "Chat"). */
export function formatTime(value: Date | string | number): string {
  const d = new Date(value);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** First and last name joined, else whichever exists, else "Unknown User" (docs/behaviour.md, "Profile and files"). */
export function displayName(user: NameParts | null | undefined): string {
  const parts = [user?.firstName?.trim(), user?.lastName?.trim()].filter(Boolean);
  return parts.length ? parts.join(' ') : 'Unknown User';
}

/**
 * First letters of first and last name, uppercase, else one letter, else "U" (docs/behaviour.md, "Profile and files").
 */
export function initials(user: NameParts | null | undefined): string {
  const letters = [user?.firstName?.trim()[0], user?.lastName?.trim()[0]].filter(Boolean).join('');
  return letters ? letters.toUpperCase() : 'U';
}

/**
 * Name the avatar is drawn from: the display name, or "User" when there is no name
 * (docs/behaviour.md, "Profile and files").
 */
export function avatarName(user: NameParts | null | undefined): string {
  const name = displayName(user);
  return name === 'Unknown User' ? 'User' : name;
}

/** Bytes, KB, MB or GB with two decimals (docs/behaviour.md, "Messages and formats"). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} Bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(2)} ${units[unit]}`;
}

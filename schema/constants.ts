/** Business constants and fixed lists; the area each bounds says what they mean (docs/behaviour.md). */

export const PRODUCT_NAME = 'Staff Portal';
export const BRAND_COLOR = '#4C307D';

/** The nine named houses (docs/behaviour.md, "Product"); the tenth carries the organisation's name (ORG_NAME). */
export const NAMED_HOUSES = [
  'Apps House',
  'Chartwell & Community',
  'Flora Innes House',
  'Giles House',
  'Hanover Drive',
  'The Lodges',
  'Main Road',
  'Tudor Way',
  'Westminster Croft',
] as const;

/** All ten houses, the tenth named after the operating organisation. */
export function listHouses(orgName: string): string[] {
  return [...NAMED_HOUSES, orgName];
}

export const MINUTE_MS = 60_000;

export const LIMITS = {
  inactivityLogoutMs: 30 * MINUTE_MS,
  inactivityWarningMs: 25 * MINUTE_MS,
  currentUserFreshMs: 5 * MINUTE_MS,
  toastDurationMs: 5000,
  toastLimit: 1,
  passwordMinLength: 8,
  postUploaderFiles: 20,
  pickerDefaultFiles: 5,
  uploadMaxBytes: 25 * 1024 * 1024,
  profilePictureMaxBytes: 5 * 1024 * 1024,
  /** Pictures with more pixels are refused before they are decoded (a small file can hold a huge picture). */
  pictureMaxPixels: 40_000_000,
  /** Stored pictures are at most this long on their longest edge (never enlarged). */
  pictureLongestEdge: 2560,
  /** The variant cards show, as wide as a phone's screen draws it; the viewer opens the stored picture. */
  pictureCardEdge: 1080,
  suggestionTitleMax: 255,
  suggestionContentMax: 1000,
  bellMaxPosts: 5,
  searchMaxResults: 5,
  highlightMs: 3000,
  highlightLinkDelayMs: 1000,
  pushPromptDelayMs: 2000,
  testNotificationDelayMs: 1000,
  serviceWorkerReadyMs: 10_000,
  redirectDelayMs: 500,
  backToTopPx: 300,
  mobilePostImages: 2,
  reactionTooltipNames: 5,
  /** How long an emailed password-reset link stays valid. */
  resetTokenMs: 60 * MINUTE_MS,
  /** How long an invitation link for a new staff member stays valid. */
  inviteTokenMs: 7 * 24 * 60 * MINUTE_MS,
  /** Failed sign-ins for one account before it is locked for the window. */
  loginFailuresPerAccount: 5,
  /** Failed sign-ins from one address before it is locked for the window. */
  loginFailuresPerAddress: 30,
  loginFailureWindowMs: 15 * MINUTE_MS,
  /** Password-reset and registration requests naming one e-mail, per window, known or not (decision 124). */
  accountRequestsPerEmail: 5,
  /** Password-reset and registration requests from one client address, per window (decision 124). */
  accountRequestsPerAddress: 20,
  accountRequestWindowMs: 15 * MINUTE_MS,
  /** Upper bound of a session however active it is (decision 6). */
  sessionMaxAgeMs: 12 * 60 * MINUTE_MS,
  /** Client reports user activity to the server at most this often. */
  activityHeartbeatMs: MINUTE_MS,
} as const;

export const REGISTRATION_MODES = ['approval', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/**
 * The emoji picker (decision 129): its size, its default reactions (thumbs up, heart, smile, cry, pray, thumbs
 * down, angry) and how many emoji its "Frequently Used" row keeps. No skin tones; its data is the app's own
 * (decision 129), never a CDN's.
 */
export const EMOJI_PICKER = {
  widthPx: 320,
  heightPx: 400,
  defaultReactions: ['👍', '❤️', '😃', '😢', '🙏', '👎', '😡'],
  frequentMax: 16,
  /** Where the app serves emojibase-data's English files, as `<url>/en/data.json` and `<url>/en/messages.json`. */
  dataUrl: '/emojibase',
} as const;

/** Names shared by the app and its service worker. */

/** Runtime cache of uploaded pictures; deleted at sign-out with the rest of the user's local data. */
export const UPLOADS_CACHE = 'sp-uploads';

/** Messages the app posts to its service worker. */
export const SW_MESSAGES = {
  /** Activate the waiting version now ("Update Now"). */
  skipWaiting: 'SKIP_WAITING',
} as const;

/** IndexedDB database where posts wait for their files to upload (src/features/feed/pending-files.ts). */
/** Every IndexedDB database of the app's has this in its name (per-user RxDB stores, waiting files). */
export const LOCAL_DATABASE_PREFIX = 'sp_';
export const PENDING_FILES_DB = `${LOCAL_DATABASE_PREFIX}pending_files`;
/** IndexedDB database of work kept sealed after a session ended (src/db/kept-store.ts, decision 114). */
export const KEPT_DB = `${LOCAL_DATABASE_PREFIX}kept`;
/** localStorage item holding the server's key for sealing kept work, from GET /api/config (decision 114). */
export const KEPT_KEY_ITEM = 'sp_kept_key';
/** Dispatched on the page when kept work is added or removed (the sign-in screen counts it again). */
export const KEPT_CHANGED_EVENT = 'sp-kept-changed';

/** Where residents' photos are served (schema/residents.ts); the service worker caches them with uploads. */
export const RESIDENT_PHOTO_PREFIX = '/api/residents/photos/';

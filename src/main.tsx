// Base styles first, so feature stylesheets imported by screens come after them and can refine them.
import './styles.css';
// First of all: whether this device holds a store is read while the rest of the script is evaluated.
import { startupListing } from './db/startup-listing';
// Before any module parses with zod.
import './lib/zod-config';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProviders } from './app/providers';
import { AppRouter, preloadSignedInScreen } from './app/router';
import { browserEnvironment, feedPreviewAtom, startFeedPreview } from './db/first-pull';
import { authStateAtom, currentUserAtom, refreshCurrentUser } from './features/auth/current-user';
import { appStore } from './lib/store';
import { loadPublicConfig } from './lib/public-config';
import { registerServiceWorker } from './lib/service-worker';

// Both requests start before the first render; the router shows "Loading..." until the user is known. A new
// device's feed preview (decision 97) is asked for as soon as the user is, while the feed's own code loads, and is
// ready for the feed's first render. Whether the device is new is read from the databases listed as the script
// started (another tab creating the store in these few milliseconds would only cost a needless preview).
void refreshCurrentUser((state) => {
  if (state.status !== 'signedIn') return;
  const userId = state.user.id;
  startFeedPreview(
    userId,
    (preview) => appStore.set(feedPreviewAtom, preview),
    // Still "loading" while the first screen waits for its code: the same user's preview is then wanted.
    () => {
      const auth = appStore.get(authStateAtom);
      return auth.status === 'loading' || appStore.get(currentUserAtom)?.id === userId;
    },
    browserEnvironment(startupListing),
  );
  // "Loading..." stays until the feed's code has loaded, so the feed replaces it directly (decision 105). The code
  // starts loading in a task of its own: adding its preload links to the page took several milliseconds on a slow
  // phone, on top of reading the user's answer in this one.
  return new Promise<void>((resolve) => {
    setTimeout(() => void preloadSignedInScreen(location.pathname).then(resolve), 0);
  });
});
void loadPublicConfig();
registerServiceWorker();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// A transition: index.html already shows "Loading...", so React builds the app in short slices, yielding to the
// browser between them, instead of one long task on a slow phone's first visit.
startTransition(() =>
  createRoot(root).render(
    <StrictMode>
      <AppProviders>
        <AppRouter />
      </AppProviders>
    </StrictMode>,
  ),
);

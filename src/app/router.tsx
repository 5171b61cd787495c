import { useAtomValue } from 'jotai';
import { lazy, Suspense, useLayoutEffect, useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation, useNavigationType } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { PageSpinner } from '../components/ui/spinner';
import { authStateAtom } from '../features/auth/current-user';
import { useSessionEffects } from '../features/auth/use-session-effects';
import { ForgotPasswordScreen } from './forgot-password-screen';
import { LandingScreen } from './landing-screen';
import { LoginScreen } from './login-screen';
import { NotFoundScreen } from './not-found-screen';
import { RegisterScreen } from './register-screen';
import { ResetPasswordScreen } from './reset-password-screen';
import { SetupScreen } from './setup-screen';
import { UpdateBanner } from './update-banner';

// The signed-in screens carry the local database and the feed: they load after sign-in, so the sign-in
// screens stay small (little JavaScript before the sign-in screen is usable).
let loadedHome: typeof import('./home-screen') | null = null;
const loadHomeScreen = () =>
  import('./home-screen').then((module) => {
    loadedHome = module;
    return module;
  });
const LazyHomeScreen = lazy(() => loadHomeScreen().then((m) => ({ default: m.HomeScreen })));

/**
 * The feed's screen: rendered at once when its code has already loaded (decision 105). Through `lazy` it would
 * suspend once even then, and React holds a screen that replaces a fallback back until 300 ms after that fallback
 * showed. Which of the two is fixed when the route mounts, so the feed never mounts twice.
 */
function HomeRoute({ user }: { user: CurrentUser }) {
  const [Screen] = useState(() => loadedHome?.HomeScreen ?? LazyHomeScreen);
  return <Screen user={user} />;
}

/**
 * Starts loading the feed's code as soon as the server says someone is signed in on "/", instead of when the router
 * first renders there: on a slow phone that render waits for the app's own script to finish its first work.
 * Resolves once it has loaded or failed (the route then shows the failure).
 */
export function preloadSignedInScreen(pathname: string): Promise<void> {
  if (pathname !== '/') return Promise.resolve();
  return loadHomeScreen().then(
    () => undefined,
    () => undefined,
  );
}
const AdminScreen = lazy(() => import('./admin-screen').then((m) => ({ default: m.AdminScreen })));
const ResidentsScreen = lazy(() => import('./residents-screen').then((m) => ({ default: m.ResidentsScreen })));
const HandoverScreen = lazy(() => import('./handover-screen').then((m) => ({ default: m.HandoverScreen })));
const TwoFactorScreen = lazy(() => import('./two-factor-screen').then((m) => ({ default: m.TwoFactorScreen })));

/**
 * A screen opened by a link or a redirect starts at its top, not at the scroll of the screen before it; Back and
 * Forward leave the browser to put the page where it was (decision 128).
 */
function useTopOfNewScreen(): void {
  const { pathname } = useLocation();
  const type = useNavigationType();
  useLayoutEffect(() => {
    if (type !== 'POP') window.scrollTo(0, 0);
  }, [pathname, type]);
}

/** The route table (docs/behaviour.md, "Screens and routes"). */
function AppRoutes() {
  useSessionEffects();
  useTopOfNewScreen();
  const auth = useAtomValue(authStateAtom);
  if (auth.status === 'loading') return <PageSpinner />;
  const user = auth.status === 'signedIn' ? auth.user : null;
  // An admin who must set up a second factor sees only that screen until it is done (decision 148).
  if (user?.twoFactorSetupRequired) return <SetupOnlyRoutes user={user} />;
  return (
    <>
      <Suspense fallback={<PageSpinner />}>
        <Routes>
          <Route path="/" element={user ? <HomeRoute user={user} /> : <LandingScreen />} />
          <Route path="/login" element={user ? <Navigate to="/" replace /> : <LoginScreen />} />
          <Route path="/register" element={user ? <Navigate to="/" replace /> : <RegisterScreen />} />
          <Route path="/forgot-password" element={<ForgotPasswordScreen />} />
          <Route path="/reset-password" element={<ResetPasswordScreen />} />
          <Route path="/setup" element={<SetupScreen />} />
          <Route path="/admin" element={<AdminScreen user={user} />} />
          {/* Signed out, the landing as on "/": a redirect here would race sign-out's own navigation to "/". */}
          <Route path="/residents" element={user ? <ResidentsScreen user={user} /> : <LandingScreen />} />
          <Route path="/handover" element={user ? <HandoverScreen user={user} /> : <LandingScreen />} />
          <Route path="/two-factor" element={user ? <TwoFactorScreen user={user} /> : <LandingScreen />} />
          <Route path="*" element={<NotFoundScreen />} />
        </Routes>
      </Suspense>
      {/* On every screen, signed in or out: a waiting version is offered on the landing too (decision 128). */}
      <UpdateBanner />
    </>
  );
}

/** The routes of a session that may only set up a second factor: every path leads to its screen. */
function SetupOnlyRoutes({ user }: { user: CurrentUser }) {
  return (
    <Suspense fallback={<PageSpinner />}>
      <Routes>
        <Route path="/two-factor" element={<TwoFactorScreen user={user} />} />
        <Route path="*" element={<Navigate to="/two-factor" replace />} />
      </Routes>
    </Suspense>
  );
}

export function AppRouter() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}

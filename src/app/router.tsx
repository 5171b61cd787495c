import { useAtomValue } from 'jotai';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { PageSpinner } from '../components/ui/spinner';
import { authStateAtom } from '../features/auth/current-user';
import { useSessionEffects } from '../features/auth/use-session-effects';
import { AdminScreen } from './admin-screen';
import { ForgotPasswordScreen } from './forgot-password-screen';
import { HomeScreen } from './home-screen';
import { LandingScreen } from './landing-screen';
import { LoginScreen } from './login-screen';
import { NotFoundScreen } from './not-found-screen';
import { RegisterScreen } from './register-screen';
import { ResetPasswordScreen } from './reset-password-screen';
import { SetupScreen } from './setup-screen';

/** The route table of spec section 2 (/residents arrives with its own issue and falls to Not Found until then). */
function AppRoutes() {
  useSessionEffects();
  const auth = useAtomValue(authStateAtom);
  if (auth.status === 'loading') return <PageSpinner />;
  const user = auth.status === 'signedIn' ? auth.user : null;
  return (
    <Routes>
      <Route path="/" element={user ? <HomeScreen user={user} /> : <LandingScreen />} />
      <Route path="/login" element={user ? <Navigate to="/" replace /> : <LoginScreen />} />
      <Route path="/register" element={user ? <Navigate to="/" replace /> : <RegisterScreen />} />
      <Route path="/forgot-password" element={<ForgotPasswordScreen />} />
      <Route path="/reset-password" element={<ResetPasswordScreen />} />
      <Route path="/setup" element={<SetupScreen />} />
      <Route path="/admin" element={<AdminScreen user={user} />} />
      <Route path="*" element={<NotFoundScreen />} />
    </Routes>
  );
}

export function AppRouter() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}

import { Provider as StoreProvider } from 'jotai';
import type { ReactNode } from 'react';
import { Toaster } from '../components/ui/toast';
import { appStore } from '../lib/store';
import { AppErrorBoundary } from './error-boundary';

/** State store, error fallback and the toast area around the whole app. */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <AppErrorBoundary>
      <StoreProvider store={appStore}>
        {children}
        <Toaster />
      </StoreProvider>
    </AppErrorBoundary>
  );
}

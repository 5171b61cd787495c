import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/**
 * The fallback page when the app cannot render (docs/behaviour.md, "Screens and routes"). It links to /login (the old
 * legacy route carries a personal name and is not reproduced) with a plain link, since the router may be what broke.
 */
export class AppErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('The app failed to render', error, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="center-page">
        <section className="card auth-card">
          <div className="card-header">
            <h1 className="card-title">Something went wrong</h1>
            <p className="card-description">The Staff Portal could not be displayed. Please sign in again.</p>
          </div>
          <div className="card-content">
            <a className="btn btn-primary btn-md" href="/login">
              Go to Sign In
            </a>
          </div>
        </section>
      </main>
    );
  }
}

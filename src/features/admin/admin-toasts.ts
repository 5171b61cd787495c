import { NetworkError, serverMessageOf } from '../../lib/api';
import { toast } from '../../lib/toast';

/** docs/behaviour.md, "Administration": title "Error", the fixed failure text, and the server's message under it. */
export function toastAdminFailure(failure: string, error: unknown): void {
  const detail =
    error instanceof NetworkError ? 'Unable to connect to the server. Please try again.' : serverMessageOf(error, '');
  toast({ title: 'Error', description: failure, detail: detail || undefined, variant: 'destructive' });
}

export function toastAdminSuccess(text: string): void {
  toast({ title: 'Success', description: text });
}

import { toast } from './toast';

/** The server cannot be reached (sign-in and registration; docs/behaviour.md, "Accounts"). */
export function toastConnectionError(): void {
  toast({
    title: 'Connection error',
    description: 'Unable to connect to the server. Please try again.',
    variant: 'destructive',
  });
}

/** A reset or invitation link that does not work (docs/behaviour.md, "Accounts"). */
export function toastInvalidLink(): void {
  toast({
    title: 'Invalid Link',
    description: 'This password reset link is invalid or has expired.',
    variant: 'destructive',
  });
}

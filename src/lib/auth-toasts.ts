import { toast } from './toast';

/** The server cannot be reached (spec section 8: sign-in and registration). */
export function toastConnectionError(): void {
  toast({
    title: 'Connection error',
    description: 'Unable to connect to the server. Please try again.',
    variant: 'destructive',
  });
}

/** A reset or invitation link that does not work (spec section 8). */
export function toastInvalidLink(): void {
  toast({
    title: 'Invalid Link',
    description: 'This password reset link is invalid or has expired.',
    variant: 'destructive',
  });
}

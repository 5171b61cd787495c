import type { ErrorCode } from '../../schema/errors';

/** An error whose message is safe to show to the user; the error handler turns it into JSON. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: { path: string; message: string }[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: { path: string; message: string }[]): never => {
  throw new AppError(400, details ? 'validation_failed' : 'bad_request', message, details);
};
export const unauthenticated = (message = 'Unauthorized'): never => {
  throw new AppError(401, 'unauthenticated', message);
};
export const forbidden = (message = 'You do not have permission to do that'): never => {
  throw new AppError(403, 'forbidden', message);
};
export const notFound = (message = 'Not found'): never => {
  throw new AppError(404, 'not_found', message);
};
export const conflict = (message: string): never => {
  throw new AppError(409, 'conflict', message);
};
export const gone = (message: string): never => {
  throw new AppError(410, 'gone', message);
};
export const tooManyRequests = (message: string, retryAfterSeconds: number): never => {
  throw new AppError(429, 'rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
};

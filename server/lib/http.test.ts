import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { UNAVAILABLE_MESSAGE } from '../../schema/errors';
import type { AppEnv } from './context';
import { handleError } from './http';

/** An app whose one route throws `error`, answered by the app's error handler. */
function answerTo(error: Error) {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.get('/', () => {
    throw error;
  });
  return app.request('/');
}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('what an unexpected error answers', () => {
  it('a database out of reach (a failover) is a 503 to retry, saying nothing of the database', async () => {
    for (const error of [
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('cannot execute INSERT in a read-only transaction', '25006'),
      withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      // As the query builder throws it, the driver's error as its cause.
      new Error('Failed query: insert into "posts"', {
        cause: withCode('the database system is shutting down', '57P03'),
      }),
    ]) {
      const res = await answerTo(error);
      expect(res.status, error.message).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({ code: 'unavailable', message: UNAVAILABLE_MESSAGE });
    }
  });

  it('anything else is the generic 500', async () => {
    for (const error of [new Error('boom'), withCode('UNIQUE constraint failed: posts.id', 'SQLITE_CONSTRAINT')]) {
      const res = await answerTo(error);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ code: 'internal', message: 'Something went wrong. Please try again.' });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from './api';
import { toastRequestFailure } from './form';
import { appStore } from './store';
import { toastsAtom } from './toast';

const newest = () => appStore.get(toastsAtom)[0];

describe('toastRequestFailure', () => {
  const fail = toastRequestFailure('Login failed', 'Invalid email or password');

  it('says "Connection error" when the server cannot be reached', () => {
    fail(new NetworkError(new TypeError('fetch failed')));
    expect(newest()).toMatchObject({ title: 'Connection error', variant: 'destructive' });
  });

  it('shows the server’s own message under the title, else the fallback', () => {
    fail(new ApiError(401, 'Unauthorized', '', 'Account is inactive', 'unauthenticated'));
    expect(newest()).toMatchObject({
      title: 'Login failed',
      description: 'Account is inactive',
      variant: 'destructive',
    });
    fail(new ApiError(500, 'Internal Server Error', '', undefined, undefined));
    expect(newest()).toMatchObject({ title: 'Login failed', description: 'Invalid email or password' });
  });
});

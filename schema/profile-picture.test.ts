import { describe, expect, it } from 'vitest';
import { checkProfilePicture } from './profile-picture';

const MB = 1024 * 1024;

describe('checkProfilePicture', () => {
  it('accepts an image of at most 5MB', () => {
    expect(checkProfilePicture({ size: 5 * MB, type: 'image/jpeg' })).toBeNull();
    expect(checkProfilePicture({ size: 10, type: 'image/png' })).toBeNull();
  });

  it('refuses a file over 5MB as too large, whatever its type (size is checked first)', () => {
    expect(checkProfilePicture({ size: 5 * MB + 1, type: 'image/jpeg' })).toBe('tooLarge');
    expect(checkProfilePicture({ size: 6 * MB, type: 'application/pdf' })).toBe('tooLarge');
  });

  it('refuses anything that is not an image', () => {
    expect(checkProfilePicture({ size: 10, type: 'application/pdf' })).toBe('notImage');
    expect(checkProfilePicture({ size: 10, type: '' })).toBe('notImage');
  });
});

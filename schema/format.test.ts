import { describe, expect, it } from 'vitest';
import { avatarName, displayName, formatDateTime, formatFileSize, formatTime, initials } from './format';

describe('format helpers: dates, names, initials and file sizes', () => {
  it('writes dates as dd/MM/yyyy HH:mm and message times as HH:mm', () => {
    const d = new Date(2026, 0, 5, 7, 3);
    expect(formatDateTime(d)).toBe('05/01/2026 07:03');
    expect(formatTime(d)).toBe('07:03');
  });

  it('joins names, falls back to one part, then "Unknown User"', () => {
    expect(displayName({ firstName: 'Ada', lastName: 'Lovelace' })).toBe('Ada Lovelace');
    expect(displayName({ firstName: 'Ada', lastName: '' })).toBe('Ada');
    expect(displayName({ lastName: 'Lovelace' })).toBe('Lovelace');
    expect(displayName({})).toBe('Unknown User');
    expect(displayName(null)).toBe('Unknown User');
  });

  it('makes initials from both names, one letter, or "U"', () => {
    expect(initials({ firstName: 'ada', lastName: 'lovelace' })).toBe('AL');
    expect(initials({ firstName: 'Ada' })).toBe('A');
    expect(initials({})).toBe('U');
  });

  it('draws the avatar from "User" when there is no name', () => {
    expect(avatarName({})).toBe('User');
    expect(avatarName({ firstName: 'Ada' })).toBe('Ada');
  });

  it('sizes files in Bytes, KB, MB or GB with two decimals', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(1023)).toBe('1023 Bytes');
    expect(formatFileSize(1536)).toBe('1.50 KB');
    expect(formatFileSize(25 * 1024 * 1024)).toBe('25.00 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3.00 GB');
  });
});

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { audienceHousesOf } from './alert-audience-picker';
import { ConfirmationFields, confirmationOfPost, storedConfirmation } from './confirmation-fields';

describe('the "Requires confirmation" fields', () => {
  it('show the due date only while confirmation is required', () => {
    const render = (required: boolean) =>
      renderToStaticMarkup(
        createElement(ConfirmationFields, { value: { required, confirmBy: '' }, onChange: () => undefined }),
      );
    expect(render(false)).toContain('Requires confirmation');
    expect(render(false)).not.toContain('type="date"');
    expect(render(true)).toContain('type="date"');
  });

  it('store a due date only with confirmation, and none for an empty date', () => {
    expect(storedConfirmation({ required: true, confirmBy: '2026-12-31' })).toEqual({
      requiresConfirmation: true,
      confirmBy: '2026-12-31',
    });
    expect(storedConfirmation({ required: true, confirmBy: '' })).toEqual({
      requiresConfirmation: true,
      confirmBy: null,
    });
    expect(storedConfirmation({ required: false, confirmBy: '2026-12-31' })).toEqual({
      requiresConfirmation: false,
      confirmBy: null,
    });
    expect(confirmationOfPost({})).toEqual({ required: false, confirmBy: '' });
  });

  it('keep the chosen houses of a post that requires confirmation though it is not urgent', () => {
    const houses = { audience: 'houses' as const, houses: ['Apps House'] };
    expect(audienceHousesOf(true, houses)).toEqual(['Apps House']);
    expect(audienceHousesOf(false, houses)).toEqual([]);
  });
});

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { FieldBinding } from '../lib/form';
import { EmailField, NameFields, NewAccountFields, NewPasswordFields, SubmitButton } from './account-fields';

const bound = (value: string, error?: string): FieldBinding => ({ value, onChange: () => undefined, error });

describe('the account screens’ fields', () => {
  it('gives the Email field its id, label, keyboard and autofill, and ties its message to it', () => {
    const html = renderToStaticMarkup(
      createElement(EmailField, { id: 'login-email', autoComplete: 'username', ...bound('a@b', 'Invalid email') }),
    );
    expect(html).toContain('<label class="label" for="login-email">Email</label>');
    expect(html).toMatch(/<input[^>]*id="login-email"[^>]*>/);
    for (const attribute of ['type="email"', 'autoComplete="username"', 'inputMode="email"', 'value="a@b"']) {
      expect(html.toLowerCase()).toContain(attribute.toLowerCase());
    }
    expect(html).toContain('aria-describedby="login-email-error"');
    expect(html).toContain('<p id="login-email-error" class="field-error">Invalid email</p>');
  });

  it('names the name and password fields after the screen, as the journeys find them', () => {
    const names = renderToStaticMarkup(
      createElement(NameFields, { idPrefix: 'register', firstName: bound('Ann'), lastName: bound('Lee') }),
    );
    expect(names).toContain('for="register-first-name">First Name</label>');
    expect(names).toContain('for="register-last-name">Last Name</label>');
    expect(names).toContain('given-name');
    expect(names).toContain('family-name');
    const passwords = renderToStaticMarkup(
      createElement(NewPasswordFields, {
        idPrefix: 'reset',
        label: 'New Password',
        hint: 'At least 8 characters',
        password: bound('x'),
        confirmPassword: bound('y', "Passwords don't match"),
      }),
    );
    expect(passwords).toContain('for="reset-password">New Password</label>');
    expect(passwords).toContain('<div id="reset-password-hint" class="field-hint">At least 8 characters</div>');
    expect(passwords).toContain('for="reset-confirm-password">Confirm Password</label>');
    expect(passwords).toContain('id="reset-confirm-password-error"');
    expect(passwords.match(/new-password/g)).toHaveLength(2);
  });

  it('shows the busy label and a disabled button while the request runs, the label otherwise', () => {
    const idle = renderToStaticMarkup(
      createElement(SubmitButton, { busy: false, busyLabel: 'Signing in...', children: 'Sign In' }),
    );
    expect(idle).toMatch(/<button[^>]*type="submit"[^>]*>Sign In<\/button>/);
    expect(idle).not.toContain('disabled');
    const busy = renderToStaticMarkup(
      createElement(SubmitButton, { busy: true, busyLabel: 'Signing in...', children: 'Sign In' }),
    );
    expect(busy).toContain('disabled');
    expect(busy).toContain('Signing in...');
    const kept = renderToStaticMarkup(createElement(SubmitButton, { busy: true, children: 'Reset Password' }));
    expect(kept).toContain('Reset Password');
  });

  it('lays a new account out as names, email, what the screen adds, then the password twice', () => {
    const html = renderToStaticMarkup(
      createElement(NewAccountFields, {
        idPrefix: 'setup',
        field: (name: string) => bound(name),
        passwordHint: 'rules',
        children: createElement('p', { id: 'between' }),
      }),
    );
    const ids = [...html.matchAll(/<(?:input|p) [^>]*id="([^"]+)"/g)].map((match) => match[1]);
    expect(ids).toEqual([
      'setup-first-name',
      'setup-last-name',
      'setup-email',
      'between',
      'setup-password',
      'setup-confirm-password',
    ]);
    expect(html).toContain('value="email"');
  });
});

import { useCallback, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { z } from 'zod';
import { NetworkError, serverMessageOf } from './api';
import { toastConnectionError } from './auth-toasts';
import { toast } from './toast';

export type FieldErrors = Record<string, string | undefined>;

/** The first validation message of each top-level field. */
export function fieldErrorsOf(schema: z.ZodType, values: unknown): FieldErrors {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const key = String(issue.path[0] ?? '');
    errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * Validates a form with a schema of schema/: no messages until the first submit, then they follow every
 * change. `check()` marks the form submitted and returns the parsed values, or null when invalid.
 */
export function useFormValidation<S extends z.ZodType>(
  schema: S,
  values: z.input<S>,
  extra?: (errors: FieldErrors) => FieldErrors,
) {
  const [submitted, setSubmitted] = useState(false);
  const errors = submitted ? errorsOf(schema, values, extra) : {};
  const check = (): z.output<S> | null => {
    setSubmitted(true);
    return parsedOrNull(schema, values, extra);
  };
  const reset = () => setSubmitted(false);
  return { errors, check, reset };
}

/**
 * useFormValidation with a schema loaded on demand (`load`, from lib/account-schemas.ts; decision 113). The form calls
 * `prepare` when the user first focuses it (its `onFocus`), so the screen is usable before zod has loaded and the
 * schema is there by the time the user submits; `check()` waits for it if a submit comes first. Until the first
 * submit there are no messages either way.
 */
export function useLoadedFormValidation<S extends z.ZodType>(
  load: () => Promise<S>,
  values: z.input<S>,
  extra?: (errors: FieldErrors) => FieldErrors,
) {
  const [schema, setSchema] = useState<S | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const asked = useRef(false);
  const prepare = useCallback(() => {
    if (asked.current) return;
    asked.current = true;
    load().then(
      (loaded) => setSchema(() => loaded),
      // A network that failed as the user started: check() asks again, and says so if it fails again.
      () => (asked.current = false),
    );
  }, [load]);
  const errors = submitted && schema ? errorsOf(schema, values, extra) : {};
  const check = async (): Promise<z.output<S> | null> => {
    let loaded = schema;
    try {
      loaded ??= await load();
    } catch {
      // The schema's code could not be fetched: the same message as a sign-in the server cannot answer.
      toastConnectionError();
      return null;
    }
    setSchema(() => loaded);
    setSubmitted(true);
    return parsedOrNull(loaded, values, extra);
  };
  return { errors, check, prepare };
}

function errorsOf(schema: z.ZodType, values: unknown, extra?: (errors: FieldErrors) => FieldErrors): FieldErrors {
  const errors = fieldErrorsOf(schema, values);
  return extra ? extra(errors) : errors;
}

function parsedOrNull<S extends z.ZodType>(
  schema: S,
  values: unknown,
  extra?: (errors: FieldErrors) => FieldErrors,
): z.output<S> | null {
  if (Object.values(errorsOf(schema, values, extra)).some(Boolean)) return null;
  const result = schema.safeParse(values);
  return result.success ? result.data : null;
}

/** Shows "Passwords don't match" as soon as both are typed, not only once every other field is valid. */
export function withPasswordMatch(password: string, confirmPassword: string) {
  return (errors: FieldErrors): FieldErrors =>
    password !== confirmPassword
      ? { ...errors, confirmPassword: errors.confirmPassword ?? "Passwords don't match" }
      : errors;
}

/** What a text field of a form takes: its value, its change handler and its validation message. */
export interface FieldBinding {
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  error?: string;
}

/**
 * The text values of a form in one state; `bind(errors)` gives each field's binding to spread on its TextField or
 * PasswordField (decision 134).
 */
export function useFormFields<V extends Record<string, string>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const bind =
    (errors: FieldErrors) =>
    (name: keyof V & string): FieldBinding => ({
      value: values[name],
      onChange: (event) => {
        const { value } = event.target;
        setValues((current) => ({ ...current, [name]: value }));
      },
      error: errors[name],
    });
  return { values, bind };
}

/**
 * An account form's submit (decision 134): checks the values (no request when they are invalid), sends them while
 * `busy`, and hands a failure to `fail`.
 */
export function useFormSubmit<T>(
  check: () => Promise<T | null>,
  send: (body: T) => Promise<void>,
  fail: (error: unknown) => void,
) {
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const body = await check();
    if (body === null) return;
    setBusy(true);
    try {
      await send(body);
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit();
  };
  return { busy, onSubmit };
}

/** A failed account request: "Connection error" when the server cannot be reached, else `title` and its message. */
export function toastRequestFailure(title: string, fallback: string): (error: unknown) => void {
  return (error) => {
    if (error instanceof NetworkError) toastConnectionError();
    else toast({ title, description: serverMessageOf(error, fallback), variant: 'destructive' });
  };
}

/** The text fields of a new account (registration, setup). */
export interface NewAccountText extends Record<string, string> {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  confirmPassword: string;
}

const NEW_ACCOUNT: NewAccountText = { firstName: '', lastName: '', email: '', password: '', confirmPassword: '' };

/**
 * A new account's fields and their validation, "Passwords don't match" included; `values` adds what the screen
 * sends besides them (the role, the setup token).
 */
export function useNewAccountForm<S extends z.ZodType>(
  load: () => Promise<S>,
  values: (text: NewAccountText) => z.input<S>,
) {
  const { values: text, bind } = useFormFields(NEW_ACCOUNT);
  const validation = useLoadedFormValidation(
    load,
    values(text),
    withPasswordMatch(text.password, text.confirmPassword),
  );
  return { text, field: bind(validation.errors), ...validation };
}

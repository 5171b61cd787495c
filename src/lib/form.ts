import { useState } from 'react';
import type { z } from 'zod';

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
  const compute = (): FieldErrors => {
    const errors = fieldErrorsOf(schema, values);
    return extra ? extra(errors) : errors;
  };
  const errors = submitted ? compute() : {};
  const check = (): z.output<S> | null => {
    setSubmitted(true);
    if (Object.values(compute()).some(Boolean)) return null;
    const result = schema.safeParse(values);
    return result.success ? result.data : null;
  };
  const reset = () => setSubmitted(false);
  return { errors, check, reset };
}

/** Shows "Passwords don't match" as soon as both are typed, not only once every other field is valid. */
export function withPasswordMatch(password: string, confirmPassword: string) {
  return (errors: FieldErrors): FieldErrors =>
    password !== confirmPassword
      ? { ...errors, confirmPassword: errors.confirmPassword ?? "Passwords don't match" }
      : errors;
}

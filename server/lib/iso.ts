/** A time in milliseconds as the API writes it (ISO 8601, UTC). */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * iso() that remembers its answers: a report of thousands of members names the same few times (when a post asked
 * them) again and again, and each conversion allocates a Date and a string.
 */
export function rememberingIso(): (ms: number) => string {
  const known = new Map<number, string>();
  return (ms) => {
    let text = known.get(ms);
    if (text === undefined) known.set(ms, (text = iso(ms)));
    return text;
  };
}

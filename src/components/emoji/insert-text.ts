/** The text after `insert` replaced the selection [start, end) of `value`, and where the caret goes then. */
export function insertText(
  value: string,
  insert: string,
  start: number | null,
  end: number | null,
  maxLength?: number,
): { value: string; caret: number } {
  // Without a selection (the field never had focus) the emoji goes at the end.
  const from = Math.min(start ?? value.length, value.length);
  const to = Math.max(from, Math.min(end ?? from, value.length));
  const next = value.slice(0, from) + insert + value.slice(to);
  // A field at its limit takes no more: the emoji is not cut in half.
  if (maxLength !== undefined && next.length > maxLength) return { value, caret: to };
  return { value: next, caret: from + insert.length };
}

/**
 * A CSV cell: quoted, and a text that a spreadsheet would run as a formula (starting with =, +, -, @, a tab
 * or a carriage return) is prefixed with an apostrophe (OWASP CSV injection).
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** One CSV line of cells (RFC 4180 line ending). */
export function csvLine(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

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

/** Lines written per chunk of a streamed CSV; the event loop runs between chunks (decision 130). */
export const CSV_CHUNK_LINES = 500;

/**
 * A CSV answer's body taken from `lines` as the client reads it, in chunks of `chunkLines` lines, each after a turn
 * of the event loop: a large export neither blocks other requests nor is held whole in memory (decision 130). A
 * download stopped early ends the lines with `return()`, so their `finally` runs. The lines may be read asynchronously
 * (an async generator reading the database).
 */
export function csvStream(
  lines: Iterator<string> | AsyncIterator<string>,
  chunkLines = CSV_CHUNK_LINES,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        let text = '';
        for (let i = 0; i < chunkLines; i++) {
          const next = await lines.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += next.value;
        }
        controller.enqueue(encoder.encode(text));
      },
      async cancel() {
        await lines.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}

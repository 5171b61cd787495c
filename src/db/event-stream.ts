import { errorCodeOf } from '../lib/api';

/** One Server-Sent Event: its name (default "message") and data. */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * Reads an SSE stream with fetch and a stream reader (works in browsers and in Node 20, which has no
 * EventSource), calling onEvent for each event. Resolves when the stream ends; rejects on a network error or
 * a non-2xx answer (the error carries `status`, and the answer's `code` when it has one).
 */
export async function readEventStream(
  url: string,
  init: RequestInit,
  onEvent: (event: StreamEvent) => void,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  const response = await fetchImpl(url, { ...init, headers: { ...init.headers, Accept: 'text/event-stream' } });
  if (!response.ok || !response.body) {
    const code = await errorCodeOf(response);
    throw Object.assign(new Error(`${response.status}: stream refused`), { status: response.status, code });
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const parsed = parseBlock(block);
      if (parsed) onEvent(parsed);
    }
  }
}

function parseBlock(block: string): StreamEvent | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length || event !== 'message' ? { event, data: data.join('\n') } : null;
}

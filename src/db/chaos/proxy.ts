import http from 'node:http';

/** The answer header naming which backend (0, 1, …) served a request, so a run can tell where a stream landed. */
export const BACKEND_HEADER = 'x-chaos-backend';

/** Headers of one connection, not of the message: the proxy's own connections carry their own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

export interface RoundRobinProxy {
  url: string;
  /** The backend the next request goes to. */
  next: () => number;
  /** Stops listening and drops every connection, streams included. */
  close: () => Promise<void>;
}

/**
 * A load balancer in front of several app servers, as nginx's round robin (docs/sync.md, "Sync chaos"): each
 * request, live streams included, goes to the next backend in turn, bodies piped both ways; a backend that does not
 * answer gives 502, and one that dies mid-answer drops the connection, so the client retries and lands elsewhere.
 */
export function startRoundRobinProxy(backendPorts: readonly number[]): Promise<RoundRobinProxy> {
  // Keep-alive to the backends as nginx's upstream keepalive; a killed backend's pooled sockets fail and give 502.
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;
  const server = http.createServer((req, res) => {
    const backend = next;
    next = (next + 1) % backendPorts.length;
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: backendPorts[backend],
        method: req.method,
        path: req.url,
        headers: endToEnd(req.headers),
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...endToEnd(answer.headers), [BACKEND_HEADER]: String(backend) });
        // Flushed now, so a live stream's first event is not held back behind the headers.
        res.flushHeaders();
        answer.pipe(res);
        // The backend died mid-answer: the client sees its connection drop, as behind a real proxy.
        answer.on('aborted', () => res.destroy());
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (res.destroyed) return; // the client left first, which is what ended this request
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-type': 'text/plain', [BACKEND_HEADER]: String(backend) });
        res.end('502 Bad Gateway');
      }
    });
    // The client went away (offline, aborted): the backend's request ends too, closing a stream it held.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        next: () => next,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            agent.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

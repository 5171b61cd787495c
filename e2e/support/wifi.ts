import http from 'node:http';
import net from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * A device's Wi-Fi for journeys that go offline and reload (decision 102): a forwarding proxy between one
 * browser context and the app's server that the journey can switch off or make misbehave.
 *
 * `context.setOffline(true)` alone is not a lost connection. Chromium's emulation does not cover a page that is
 * being reloaded or closed: that page may even receive an `online` event, and requests it sends then reach the
 * server (a stand-alone check saw them in 54 of 60 reloads of a page controlled by a service worker). A real phone
 * without Wi-Fi sends nothing, so `off()` both cuts the proxy and sets the context offline, as the app would
 * see it. The proxy takes only plain HTTP to this machine; the faults below touch the browser's own requests only.
 *
 * `serverDown(true)` is the other failure (decision 116): the Wi-Fi works and the browser stays online, but every
 * /api/* request is answered 503 without reaching the server, as a server that is down behind its proxy answers;
 * open connections (the live stream) are cut so they meet it too. The app's own files still load.
 * `serverDown(false)` lets /api/* through again.
 *
 * The link's other faults (docs/testing-offline.md): `slow(ms)` delays every request, `loseNextAnswer` lets the
 * server store a request and drops its answer, `hangNext` holds a request that neither end ever hears of.
 */
export interface Wifi {
  /** The context option that sends the context's traffic, to localhost included, through the proxy. */
  proxy: { server: string; bypass: string };
  off(context: BrowserContext): Promise<void>;
  on(context: BrowserContext): Promise<void>;
  serverDown(down: boolean): void;
  /** Waits `ms` before forwarding each request (0 for a fast link again): a slow link, not a broken one. */
  slow(ms: number): void;
  /**
   * The next request whose path contains `pathPart` reaches the server and is answered there, but the
   * connection dies before the answer's body reaches the browser. Resolves once that has happened.
   */
  loseNextAnswer(pathPart: string): Promise<void>;
  /** The next request whose path contains `pathPart` is held, neither forwarded nor answered, until released. */
  hangNext(pathPart: string): Hang;
  close(): Promise<void>;
}

/** A request held by `hangNext`. */
export interface Hang {
  /** Resolves once the request has arrived and is being held. */
  arrived: Promise<void>;
  /** Forwards the held request to the server at last; its answer then reaches the browser as usual. */
  release(): void;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

type Fault = { pathPart: string; kind: 'lose'; done: () => void } | { pathPart: string; kind: 'hang'; hang: HeldHang };

interface HeldHang {
  arrived: () => void;
  released: Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts a Wi-Fi on a free loopback port; one per device, closed by the journey. */
export async function startWifi(): Promise<Wifi> {
  let down = false;
  let apiDown = false;
  let latencyMs = 0;
  const faults: Fault[] = [];
  const sockets = new Set<net.Socket>();
  const takeFault = (pathname: string) => {
    const index = faults.findIndex((fault) => pathname.includes(fault.pathPart));
    return index === -1 ? null : faults.splice(index, 1)[0];
  };
  const server = http.createServer(async (request, response) => {
    const target = URL.canParse(request.url ?? '') ? new URL(request.url!) : null;
    if (down || !target || target.protocol !== 'http:' || !LOCAL_HOSTS.has(target.hostname)) {
      request.socket.destroy();
      return;
    }
    if (apiDown && target.pathname.startsWith('/api/')) {
      response.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const fault = takeFault(target.pathname);
    if (fault?.kind === 'hang') {
      fault.hang.arrived();
      // Held until released, or until the connection dies (the Wi-Fi going off, the browser giving up).
      await new Promise<void>((resolve) => {
        void fault.hang.released.then(resolve);
        request.socket.once('close', resolve);
      });
    }
    if (latencyMs > 0) await wait(latencyMs);
    // The Wi-Fi went off while the request waited: it dies with it.
    if (down || request.socket.destroyed) {
      request.socket.destroy();
      return;
    }
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathname + target.search,
        method: request.method,
        headers: request.headers,
        // A fresh connection each time: a kept-alive one the server has just closed would fail the request.
        agent: false,
      },
      (answer) => {
        if (fault?.kind === 'lose') {
          // The server has answered, so it has stored the request: read its answer to the end, then cut it
          // after its status line. A connection cut before any byte would be resent by Chromium unasked.
          let length = 0;
          answer.on('data', (chunk: Buffer) => (length += chunk.length));
          answer.on('end', () => {
            request.socket.end(`HTTP/1.1 ${answer.statusCode} Lost\r\nContent-Length: ${length}\r\n\r\n`);
            fault.done();
          });
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  server.on('connection', (socket) => {
    if (down) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Playwright's own requests (`page.request`) come as tunnels: carried to this machine while the Wi-Fi is on.
  server.on('connect', (request, socket: net.Socket, head: Buffer) => {
    const target = URL.canParse(`http://${request.url}`) ? new URL(`http://${request.url}`) : null;
    if (down || !target || !LOCAL_HOSTS.has(target.hostname)) {
      socket.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    // Chromium never proxies loopback addresses unless told to with "<-loopback>".
    proxy: { server: `http://127.0.0.1:${port}`, bypass: '<-loopback>' },
    async off(context) {
      down = true;
      // Open connections (the live stream, a held request) die with the Wi-Fi.
      for (const socket of sockets) socket.destroy();
      await context.setOffline(true);
    },
    async on(context) {
      down = false;
      await context.setOffline(false);
    },
    serverDown(value) {
      apiDown = value;
      if (value) for (const socket of sockets) socket.destroy();
    },
    slow(ms) {
      latencyMs = ms;
    },
    loseNextAnswer(pathPart) {
      return new Promise<void>((done) => faults.push({ pathPart, kind: 'lose', done }));
    },
    hangNext(pathPart) {
      let arrived!: () => void;
      let release!: () => void;
      const hang: HeldHang = {
        arrived: () => arrived(),
        released: new Promise<void>((resolve) => (release = resolve)),
      };
      faults.push({ pathPart, kind: 'hang', hang });
      return { arrived: new Promise<void>((resolve) => (arrived = resolve)), release: () => release() };
    },
    async close() {
      down = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Reloads a page whose context is offline. Debian's Chromium 150 starts every new document of an offline context
 * with `navigator.onLine` true, though its requests still fail (156 is right again): the app would say "Syncing Changes" where a phone without Wi-Fi says
 * "Working Offline". There, setting the context online and offline again gives the page the offline state a real
 * device reports at once (decision 102); cut the Wi-Fi first so nothing is sent meanwhile.
 */
export async function reloadOffline(page: Page): Promise<void> {
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) {
    // Nothing would serve the reload: the journey went offline before the app was ready to work offline.
    throw new Error(
      'reloadOffline: no service worker controls the page; call waitForServiceWorker before going offline',
    );
  }
  await page.reload();
  if (await page.evaluate(() => navigator.onLine)) {
    // On purpose the browser's flag only: the Wi-Fi is already off, this fixes what the new document reports.
    await page.context().setOffline(false);
    await page.context().setOffline(true);
  }
  await page.waitForFunction(() => !navigator.onLine);
}

/**
 * Waits until the service worker has installed (the app shell is cached) and controls the page: the first load is
 * not controlled, and the worker claims it once installed. Call it before a journey goes offline and reloads.
 */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

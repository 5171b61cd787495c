import http from 'node:http';
import type net from 'node:net';
import type { BrowserContext } from '@playwright/test';

/**
 * A device's Wi-Fi for journeys that go offline and reload (decision 102): a forwarding proxy between one
 * browser context and the app's server that the journey can switch off.
 *
 * `context.setOffline(true)` alone is not a lost connection. Chromium's emulation does not cover a page that is
 * being reloaded or closed: that page may even receive an `online` event, and requests it sends then reach the
 * server (a stand-alone check saw them in 54 of 60 reloads of a page controlled by a service worker). A real phone
 * without Wi-Fi sends nothing, so `off()` both cuts the proxy and sets the context offline, as the app would
 * see it. The proxy takes only plain HTTP to this machine.
 *
 * `serverDown(true)` is the other failure (decision 116): the Wi-Fi works and the browser stays online, but every
 * /api/* request is answered 503 without reaching the server, as a server that is down behind its proxy answers;
 * open connections (the live stream) are cut so they meet it too. The app's own files still load.
 * `serverDown(false)` lets /api/* through again.
 */
export interface Wifi {
  /** The context option that sends the context's traffic, to localhost included, through the proxy. */
  proxy: { server: string; bypass: string };
  off(context: BrowserContext): Promise<void>;
  on(context: BrowserContext): Promise<void>;
  serverDown(down: boolean): void;
  close(): Promise<void>;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export async function startWifi(): Promise<Wifi> {
  let down = false;
  let apiDown = false;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    const target = URL.canParse(request.url ?? '') ? new URL(request.url!) : null;
    if (down || !target || target.protocol !== 'http:' || !LOCAL_HOSTS.has(target.hostname)) {
      request.socket.destroy();
      return;
    }
    if (apiDown && target.pathname.startsWith('/api/')) {
      response.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathname + target.search,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
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
  // Tunnels (https, web sockets) are not part of the app: refused.
  server.on('connect', (_request, socket: net.Socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    // Chromium never proxies loopback addresses unless told to with "<-loopback>".
    proxy: { server: `http://127.0.0.1:${port}`, bypass: '<-loopback>' },
    async off(context) {
      down = true;
      // Open connections (the live stream) die with the Wi-Fi.
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
    async close() {
      down = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

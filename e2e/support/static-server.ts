/**
 * @module e2e/support/static-server
 * Serves a built app (`dist/app/`) as plain static files over loopback HTTP, as any static host
 * would: a path without a file extension that names no file gets `index.html` (the app's deep
 * links, such as `/runs/<id>`). No Gateway: the app offers only "This browser".
 */
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".data": "application/octet-stream",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** A running static server. */
export interface StaticServer {
  url: string;
  /** Requests served, by path (to tell what the service worker answered instead). */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Serves `dir` on 127.0.0.1 (a free port unless `port` is given).
 * @example
 * const server = await serveStatic(APP_DIR);
 * await page.goto(server.url);
 */
export async function serveStatic(dir: string, port = 0): Promise<StaticServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    hits.set(path, (hits.get(path) ?? 0) + 1);
    let file = normalize(join(dir, path));
    if (!file.startsWith(normalize(dir))) return void res.writeHead(403).end();
    const st = statSync(file, { throwIfNoEntry: false });
    if (st?.isDirectory()) file = join(file, "index.html");
    else if (!st) {
      if (extname(path)) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      file = join(dir, "index.html");
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-cache" });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

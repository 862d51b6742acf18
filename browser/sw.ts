/**
 * @module browser/sw
 * The app's service worker, so a reload with no network opens the app. At build time
 * vite-plugin-pwa (injectManifest, vite.app.config.ts) writes the list of the built files into
 * `self.__WB_MANIFEST`: the app's scripts, styles and PGlite's wasm and data. Installing caches
 * them all; the files are then served from the cache (their names carry content hashes).
 * Pages are fetched from the network first, so a Gateway's page (with its boot data) wins when
 * it answers; without a network, any page of the app (a deep link such as `/runs/<id>`) gets
 * the cached `index.html`. Requests for anything but the build's files (the domain API, its
 * streams, a Gateway's other routes) are left to the network. See docs/app-browser.md "Offline".
 */

interface PrecacheEntry {
  url: string;
  revision: string | null;
}

/** The parts of the service worker scope used here (the root tsconfig has no WebWorker lib). */
interface SwScope {
  __WB_MANIFEST: (PrecacheEntry | string)[];
  registration: { scope: string };
  clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", fn: (e: { waitUntil(p: Promise<unknown>): void }) => void): void;
  addEventListener(type: "fetch", fn: (e: { request: Request; respondWith(r: Promise<Response>): void }) => void): void;
}

const sw = self as unknown as SwScope;
// Written out as `self.__WB_MANIFEST`: the build looks for exactly that text.
const manifest = (self as unknown as SwScope).__WB_MANIFEST.map((e) => (typeof e === "string" ? { url: e, revision: null } : e));
const scope = new URL(sw.registration.scope);
const absolute = (url: string) => new URL(url, scope).href;
/** One cache per build: its name changes with any file's revision. */
const CACHE = `flow-app-${hash(manifest.map((e) => `${e.url}@${e.revision ?? ""}`).join("|"))}`;
const INDEX = absolute("index.html");
const API = /^\/(v1|rpc|health|metrics|webhooks|sync|workflows)(\/|$)/;
const PRECACHED = new Set(manifest.map((e) => absolute(e.url)));

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(manifest.map((e) => absolute(e.url)));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith("flow-app-") && name !== CACHE) await caches.delete(name);
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin) return;
  if (request.mode === "navigate") {
    // The Gateway's own routes (at the origin's root whatever the app's mount) are not pages of the app.
    if (API.test(url.pathname)) return;
    event.respondWith(fetch(request).catch(async () => (await caches.match(INDEX, { cacheName: CACHE })) ?? Response.error()));
    return;
  }
  // Only the build's own files come from the cache; everything else (the domain API, its
  // streams, the shape proxy) goes to the network untouched.
  if (!PRECACHED.has(`${url.origin}${url.pathname}`)) return;
  event.respondWith((async () => (await caches.match(request, { cacheName: CACHE, ignoreSearch: true })) ?? fetch(request))());
});

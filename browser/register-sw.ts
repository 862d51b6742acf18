/**
 * @module browser/register-sw
 * Registers the app's service worker (browser/sw.ts, built to `sw.js` beside index.html) so
 * the app opens with no network. Skipped by the Vite dev server (its files change on every
 * edit) and where the browser has no service workers (plain http on a LAN address).
 * See docs/app-browser.md "Offline".
 */

/**
 * Registers `sw.js` at the app's base; resolves to the registration, or undefined when skipped.
 * @example
 * void registerAppServiceWorker();
 */
export async function registerAppServiceWorker(): Promise<ServiceWorkerRegistration | undefined> {
  const dev = (import.meta as { env?: { DEV?: boolean } }).env?.DEV === true;
  if (dev || typeof navigator === "undefined" || !("serviceWorker" in navigator)) return undefined;
  try {
    return await navigator.serviceWorker.register(new URL("sw.js", document.baseURI), { scope: new URL(".", document.baseURI).pathname });
  } catch (error) {
    console.warn("[flow] The service worker did not register, so the app will not open offline:", error);
    return undefined;
  }
}

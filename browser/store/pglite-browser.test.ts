import { runStoreContract } from "../../core/store/contract.js";
import { emptyCluster } from "./fixtures/memory-store.js";
import { openBrowserPgliteStore } from "./pglite-browser.js";

// The browser adapter's own code (statements, guard, close, loadDataDir) over PGlite in memory:
// OPFS and IndexedDB exist only in a browser and are exercised by e2e/offline.test.ts. Every
// store starts from the seed the app bundles (node/store/pglite-seed.ts), and a
// reopen carries the data over as a dump, the way a browser database outlives its tab.
// Unzipped once per process (browser/store/fixtures/memory-store.ts), not by each store.

runStoreContract("pglite-browser (memory)", async () => {
  let store = await openBrowserPgliteStore({ storage: "memory", loadDataDir: await emptyCluster() });
  return {
    store,
    async reopen() {
      const dump = await store.pglite.dumpDataDir("none");
      await store.close();
      store = await openBrowserPgliteStore({ storage: "memory", loadDataDir: dump });
      return store;
    },
    cleanup: () => store.close(),
  };
});

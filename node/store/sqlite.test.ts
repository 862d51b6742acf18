import { join } from "node:path";
import { openSqliteStore } from "durable-flow";
import { runStoreContract } from "../../core/store/contract.js";
import { tempDir } from "../testing/backends.js";

runStoreContract("sqlite", async () => {
  const path = join(tempDir(), "flow.db");
  let store = openSqliteStore({ path });
  return {
    store,
    reopen: async () => {
      await store.close();
      return (store = openSqliteStore({ path }));
    },
    cleanup: () => store.close(),
  };
});

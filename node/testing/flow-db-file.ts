/**
 * @module node/testing/flow-db-file
 * Flow's tables in the SQLite file a `flow` process writes (node/testing/flow-process.ts), read
 * from the test: one connection per file and test, closed when the test ends. A test that polls
 * a run's state every 20 ms so opens (and migrates, and leaves open) one connection instead of
 * one per poll. Test code only.
 */
import { onTestFinished } from "vitest";
import { FlowDb } from "../../core/engine/index.js";
import { createFlow } from "../create-flow.js";

const open = new Map<string, FlowDb>();

/**
 * The FlowDb of the SQLite file `dbPath` for the current test (opened on first use).
 * @example
 * await until(() => flowDbFile(dbPath).getRun("r1"), (r) => r?.status === "paused", "the pause");
 */
export function flowDbFile(dbPath: string): FlowDb {
  let db = open.get(dbPath);
  if (!db) {
    const opened = new FlowDb(createFlow({}, { dbPath }).db);
    open.set(dbPath, opened);
    onTestFinished(async () => {
      open.delete(dbPath);
      await opened.store.close();
    });
    db = opened;
  }
  return db;
}

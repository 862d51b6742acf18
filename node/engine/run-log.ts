/**
 * @module node/engine/run-log
 * The file event log of a run, `<logDir>/<runId>.ndjson` (`RunOptions.logDir`, `flow up
 * --log-dir`; docs/engine.md). The log is a copy of the run's events for people and tools; the
 * store is the record. So a log that cannot be written (a full disk, a read-only or missing
 * directory, no permission) never fails or stops the run: the first failure is reported once
 * through `warn` (code, file, what to do) and the rest of the run is not logged to the file.
 */
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import type { RunLogSink, RuntimeEnv } from "../../core/engine/index.js";

/**
 * Opens the run's log for appending; never throws.
 * @example
 * const log = openFileRunLog(".flow/logs", "run-1", env.warn); log.write('{"type":"RunStarted"}'); await log.close();
 */
export function openFileRunLog(logDir: string, runId: string, warn: RuntimeEnv["warn"]): RunLogSink {
  const file = join(logDir, `${runId}.ndjson`);
  let failed = false;
  const fail = (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    const code = error.code ?? error.message;
    warn(
      `The event log ${file} of run ${runId} cannot be written (${code}); the run goes on and its events stay in the store, but the file log stops here. ${code === "ENOSPC" || code === "EDQUOT" ? `Free space on the disk of ${logDir}` : `Make ${logDir} a writable directory`}, or turn the file log off (--log-dir none, logDir: null).`,
      { code: "RUN_LOG_UNWRITABLE", runId, file, errno: code },
    );
  };
  let stream: WriteStream | undefined;
  try {
    mkdirSync(logDir, { recursive: true });
    stream = createWriteStream(file, { flags: "a" });
    stream.on("error", fail);
  } catch (error) {
    fail(error as NodeJS.ErrnoException);
  }
  return {
    write: (line) => {
      if (!failed) stream?.write(`${line}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!stream || stream.closed) return resolve();
        // "close" comes after the last write succeeded or failed (end's callback can come
        // before a failed write's error).
        stream.once("close", () => resolve());
        stream.end();
      }),
  };
}

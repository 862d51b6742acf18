/**
 * @module node/tools/testing
 * Test helpers (not exported by the package): real temporary sandbox directories, the FlowError
 * a call rejects with, and a real HTTP server on loopback that records every request and
 * answers with a handler, for the HTTP and OpenAPI tool tests.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FlowError, isFlowError } from "../../core/errors.js";

/** A fresh real directory `base` (symlinks resolved) with an empty `root` inside, the sandbox root. */
export function sandboxDirs(prefix: string): { base: string; root: string; remove(): void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const root = join(base, "root");
  mkdirSync(root);
  return { base, root, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * Shell code writing the shell's pid as the host sees it to `file` (`$$` and `$!` are pids of
 * the PID namespace bash may run in; /proc is the host's, and the shell itself reads it here).
 */
export const hostPidTo = (file: string): string => `read p r < /proc/self/stat; echo $p > ${file}`;

/** True once the process is gone or a zombie (killed, not yet reaped by its new parent). */
export function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** The FlowError a call rejects with; fails the test when it resolves or throws something else. */
export async function rejection(p: Promise<unknown>): Promise<FlowError> {
  const error = await p.then(
    () => new Error("expected a rejection, but the call resolved"),
    (e: unknown) => e,
  );
  if (!isFlowError(error)) throw new Error(`expected a FlowError, got ${String(error)}`);
  return error;
}

/** The code of the FlowError a call rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  return (await rejection(p)).code;
}

export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type TestHandler = (req: RecordedRequest, res: ServerResponse) => void;

/** Starts a server on 127.0.0.1 (random port). The default handler echoes the request as JSON. */
export async function startTestServer(handler: TestHandler = echoHandler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const parsed = new URL(req.url ?? "/", "http://127.0.0.1");
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", path: parsed.pathname, query: parsed.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with a JSON echo of the request. */
export function echoHandler(req: RecordedRequest, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ method: req.method, path: req.path, query: Object.fromEntries(req.query), body: req.body }));
}

/**
 * @module browser/worker/engine-worker
 * The engine's module Web Worker, one per tab, exposed to its page with comlink. The workers of
 * one database elect a leader with a Web Lock (`flow:<db>:engine`): the holder runs the engine
 * (browser/worker/engine.ts) and answers every tab's requests; the others forward theirs to it
 * (browser/worker/tab-channel.ts). A closed leader tab releases the lock, the next worker in
 * line takes it, picks up the runs left `running` and announces itself. See
 * docs/app-browser.md "Tabs".
 */
/// <reference path="../app-workflows.d.ts" />
/// <reference path="../pglite-seed.d.ts" />
import * as Comlink from "comlink";
import { appWorkflows } from "flow-app-workflows";
import seedUrl from "flow-pglite-seed?url";
import { errorResponse } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import type { SqlRow, SqlValue } from "../../core/store/index.js";
import { exposeBrowserKeysAsEnv } from "../keys.js";
import { type BrowserStorage, offersOpfs } from "../store/index.js";
import { fromWireRequest, type WireHead, type WireRequest, wireHeadOf } from "../wire.js";
import { type RunningBrowserEngine, startBrowserEngine } from "./engine.js";
import { TabChannel } from "./tab-channel.js";

/** This worker's part in its database's engine. */
export type EngineRole = "leader" | "follower" | "starting";

/** Options of `init`. */
export interface EngineWorkerInit {
  dbName: string;
  storage: BrowserStorage | "auto";
}

/** What the page calls (through comlink). */
export interface EngineWorkerApi {
  /** Joins the election; resolves with this worker's role once it is known. */
  init(opts: EngineWorkerInit): Promise<EngineRole>;
  /** Answers a domain API request; the body streams (transferred). */
  fetch(req: WireRequest): Promise<{ head: WireHead; body: ReadableStream<Uint8Array> | null }>;
  /** Where the leader keeps the database (`unknown` until a leader has answered). */
  storage(): string;
  /** Runs SQL (`?` placeholders) on this browser's database; the leader tab only. */
  query(sql: string, params?: SqlValue[]): Promise<SqlRow[]>;
  /** How long this tab's engine took to start (leader only; undefined before it has). */
  startup(): { openMs: number; bindMs: number } | undefined;
  /** How often this tab's engine found the database's files still held by a closing tab and waited (leader only). */
  handleWaits(): number;
  /** Calls `listener` on every role change. */
  onRoleChange(listener: (role: EngineRole) => void): void;
}

const workerId = globalThis.crypto.randomUUID();
let role: EngineRole = "starting";
let channel: TabChannel | undefined;
let engine: Promise<RunningBrowserEngine> | undefined;
let settled: RunningBrowserEngine | undefined;
const roleListeners: ((role: EngineRole) => void)[] = [];
/** Where this worker keeps the database once it leads. */
let chosenStorage: BrowserStorage | undefined;
/** How often the open found a closing tab's access handles still held (browser/store/opfs-handles.ts). */
let handleWaits = 0;
/** How long a new follower waits for the leader to say where the database is. */
const LEADER_INFO_WAIT_MS = 300;

function setRole(next: EngineRole): void {
  role = next;
  for (const listener of roleListeners) listener(next);
}

/** Answers a request with the engine of this tab (once it has started). */
async function route(req: Request): Promise<Response> {
  try {
    return await (await engine!).handler.fetch(req);
  } catch (error) {
    return errorResponse(error instanceof FlowError ? error : new FlowError("STORE_OPEN_FAILED", `The engine in this browser could not start: ${(error as Error).message}`, {}, { cause: error }));
  }
}

/** The bundled empty cluster, for a database that does not exist yet (initdb when it cannot load). */
async function seed(): Promise<Blob | undefined> {
  const res = await fetch(new URL(seedUrl, import.meta.url));
  return res.ok ? res.blob() : undefined;
}

/** This worker holds the lock: start the engine, then answer every tab. */
function lead(init: EngineWorkerInit): void {
  const storage = init.storage === "auto" ? (offersOpfs() ? "opfs" : "idb") : init.storage;
  // Keys saved in this browser are the workflows' environment variables (browser/keys.ts).
  engine = exposeBrowserKeysAsEnv().then(() => startBrowserEngine({ name: init.dbName, storage, workflows: appWorkflows, loadDataDir: seed, onHandleWait: () => void handleWaits++ }));
  void engine.then((e) => (settled = e)).catch(() => undefined);
  chosenStorage = storage;
  setRole("leader");
  channel!.lead({ leaderId: workerId, storage }, route);
}

const api: EngineWorkerApi = {
  async init(init) {
    if (channel) return role;
    const lockName = `flow:${init.dbName}:engine`;
    channel = new TabChannel(lockName, workerId);
    let decided!: (role: EngineRole) => void;
    const known = new Promise<EngineRole>((resolve) => (decided = resolve));
    const holdForever = () => new Promise<never>(() => undefined);
    void navigator.locks.request(lockName, { ifAvailable: true }, async (lock) => {
      if (lock) {
        lead(init);
        decided("leader");
        return holdForever();
      }
      setRole("follower");
      // The leader answers the channel's "who" in a moment: wait for it, so the page knows the storage.
      const asked = Date.now();
      while (!channel!.leader && Date.now() - asked < LEADER_INFO_WAIT_MS) await new Promise((r) => setTimeout(r, 10));
      decided("follower");
      // Wait in line: when the leader's tab closes, this worker may be next.
      void navigator.locks.request(lockName, async () => {
        lead(init);
        return holdForever();
      });
      return undefined;
    });
    return known;
  },

  async fetch(wire) {
    let head: WireHead;
    let body: ReadableStream<Uint8Array> | null;
    if (role === "leader") {
      const res = await route(fromWireRequest(wire));
      head = wireHeadOf(res);
      body = res.body;
    } else ({ head, body } = await channel!.forward(wire));
    return Comlink.transfer({ head, body }, body ? [body as unknown as Transferable] : []);
  },

  storage() {
    return (role === "leader" ? chosenStorage : channel?.leader?.storage) ?? "unknown";
  },

  async query(sql, params) {
    if (role !== "leader") throw new FlowError("NOT_AVAILABLE", "This tab does not hold the database: run SQL from the tab whose engine role is leader.", { role });
    return (await engine!).store.query(sql, params);
  },

  startup() {
    return settled?.startup;
  },

  handleWaits() {
    return handleWaits;
  },

  onRoleChange(listener) {
    roleListeners.push(listener);
  },
};

Comlink.expose(api);

/**
 * @module node/sync/team-gateway
 * What `GatewayOptions.team` adds to a Gateway (docs/multiplayer.md): the workspace's
 * preparation on the store (team-workspace.ts), membership-narrowed auth (membership.ts), the
 * `workspace` extension (workspace-rpc.ts), the shape proxy at `/sync/` (sync-proxy.ts), and
 * `txids` on the answers of writes (sync-txids.ts). The Gateway calls these few hooks; each
 * concern lives in its own module.
 */
import type pg from "pg";
import { errorResponse } from "../../core/api/index.js";
import { PATHS, rpcPath } from "../../core/api/internal.js";
import type { Authenticate } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import type { StorePort } from "../../core/store/index.js";
import type { GatewayExtension } from "../server/index.js";
import {
  answerSync,
  assertWorkspaceId,
  type GatewayTeamOptions,
  Membership,
  NOT_A_MEMBER,
  prepareTeamWorkspace,
  SYNC_PREFIX,
  teamAuthenticate,
} from "../../sync/server.js";
import { TxidCapture } from "./sync-txids.js";
import { workspaceExtension } from "./workspace-rpc.js";

interface Prepared {
  schema: string;
  membership: Membership;
  capture: TxidCapture;
}

/** How often a team Gateway reads the workspace's members to re-check open sockets (a change applies within it). */
export const MEMBERS_POLL_MS = 500;

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
/** The one write path a non-member may call: asking which workspaces it is in. */
const LIST_PATH = rpcPath("ext.workspace.list");

/**
 * The team side of one Gateway.
 * @example
 * const team = new TeamGateway({ workspaceId: "acme", electricUrl: "http://electric:3000" }, () => host.db.store, () => Date.now());
 * await team.ready();
 */
export class TeamGateway {
  private prepared: Promise<Prepared> | undefined;

  constructor(
    readonly options: GatewayTeamOptions,
    private readonly store: () => StorePort,
    private readonly now: () => number,
  ) {
    assertWorkspaceId(options.workspaceId);
  }

  /** Prepares the store once (retried after a failure). */
  ready(): Promise<Prepared> {
    this.prepared ??= (async () => {
      const store = this.store();
      const { schema } = await prepareTeamWorkspace(store, this.options.workspaceId);
      const pool = (store as StorePort & { pool: pg.Pool }).pool;
      return { schema, membership: new Membership(store, this.options.workspaceId, this.options.owners ?? []), capture: TxidCapture.of(pool) };
    })().catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  /** The Gateway's auth, narrowed to each caller's role in the workspace. */
  authenticate(base: Authenticate): Authenticate {
    return teamAuthenticate(base, async () => (await this.ready()).membership);
  }

  /**
   * Calls `onChange` within `everyMs` of a member being added, removed or given another role
   * on any Gateway of the workspace (the Gateway re-checks its open sockets then); returns the
   * stop function.
   */
  watchMembers(onChange: () => Promise<void>, everyMs = MEMBERS_POLL_MS): () => void {
    let last: string | undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const now = await (await this.ready()).membership.fingerprint();
        if (last !== undefined && now !== last) await onChange();
        last = now;
      } catch {
        // The store may be busy or closing; the next tick reads again.
      }
      if (!stopped) (timer = setTimeout(() => void tick(), everyMs)).unref();
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** The `workspace` extension namespace. */
  extension(): GatewayExtension {
    return workspaceExtension(async () => (await this.ready()).membership, this.options.name ?? this.options.workspaceId, this.now);
  }

  /** True for a path the shape proxy answers. */
  serves(path: string): boolean {
    return path.startsWith(SYNC_PREFIX);
  }

  /** Answers a shape request. */
  async sync(req: Request, authenticate: Authenticate): Promise<Response> {
    const caller = await authenticate(req);
    const { schema } = await this.ready();
    const o = this.options;
    return answerSync({ workspaceId: o.workspaceId, schema, electricUrl: o.electricUrl, ...(o.electricSecret !== undefined ? { electricSecret: o.electricSecret } : {}), fetch: o.fetch ?? fetch }, req, caller);
  }

  /**
   * Wraps the domain API's `fetch`: the JSON answer of a write (a non-GET `/v1/` request) gets
   * `result.txids` — `{ <shape>: number[] }`, the transactions that changed each shape — when
   * it wrote any. A write by someone who is no member (removed while their writes waited in
   * an offline queue) is refused with WORKSPACE_NOT_MEMBER before anything runs.
   */
  withTxids(inner: (req: Request) => Promise<Response>, authenticate: Authenticate): (req: Request) => Promise<Response> {
    return async (req) => {
      const path = new URL(req.url).pathname;
      if (READS.has(req.method) || !path.startsWith(PATHS.v1)) return inner(req);
      if (path !== LIST_PATH) {
        const caller = await authenticate(req).catch(() => null);
        if (caller?.role === NOT_A_MEMBER) {
          const who = caller.userId ?? caller.triggeredBy;
          return errorResponse(new FlowError("WORKSPACE_NOT_MEMBER", `${who} is not a member of workspace "${this.options.workspaceId}" (removed, or never added); nothing was applied. An admin adds members.`, { workspaceId: this.options.workspaceId, userId: who }));
        }
      }
      const { capture } = await this.ready();
      const { result: res, txids } = await capture.run(() => inner(req));
      if (Object.keys(txids).length === 0 || !res.ok || !res.headers.get("content-type")?.includes("application/json")) return res;
      const body = (await res.json()) as { ok?: boolean; result?: unknown };
      if (body.ok && typeof body.result === "object" && body.result !== null && !Array.isArray(body.result)) (body.result as Record<string, unknown>).txids = txids;
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(JSON.stringify(body), { status: res.status, headers });
    };
  }
}

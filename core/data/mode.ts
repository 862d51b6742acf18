/**
 * @module core/data/mode
 * `WorkspaceMode` (SPEC.md "Data layer"): where a workspace's rows come from. `local` reads the
 * domain API of a Gateway (or of the browser worker, through its `fetch`) and its change
 * stream; `multiplayer` reads Electric shapes through the Gateway's proxy and writes through
 * the same domain API (issue #14). See docs/client.md.
 */
import { FlowError } from "../errors.js";

/**
 * A workspace served by one Gateway (or the browser worker).
 * @example
 * const mode: LocalWorkspaceMode = { kind: "local", apiBaseUrl: "http://127.0.0.1:7331", token: "s3cret" };
 */
export interface LocalWorkspaceMode {
  kind: "local";
  /** The gateway's origin, e.g. `http://127.0.0.1:7331` (the browser worker's: any origin its `fetch` answers). */
  apiBaseUrl: string;
  /** Sent as `authorization: Bearer <token>`. */
  token?: string;
}

/**
 * A team workspace: Gateways sharing one PostgreSQL, read through Electric.
 * @example
 * const mode: MultiplayerWorkspaceMode = { kind: "multiplayer", apiBaseUrl: "https://flow.example.com", electricBaseUrl: "https://flow.example.com/sync", workspaceId: "team-a" };
 */
export interface MultiplayerWorkspaceMode {
  kind: "multiplayer";
  apiBaseUrl: string;
  /** The Electric shape endpoint (the Gateway's authorizing proxy). */
  electricBaseUrl: string;
  workspaceId: string;
  token?: string;
}

/**
 * Throws INVALID_ARGUMENT unless `mode` names its Electric endpoint and its workspace.
 * @example
 * assertMultiplayerMode({ kind: "multiplayer", apiBaseUrl: origin, electricBaseUrl: `${origin}/sync`, workspaceId: "acme" });
 */
export function assertMultiplayerMode(mode: WorkspaceMode): asserts mode is MultiplayerWorkspaceMode {
  if (mode.kind !== "multiplayer" || !mode.electricBaseUrl || !mode.workspaceId) {
    throw new FlowError("INVALID_ARGUMENT", 'A multiplayer mode needs { kind: "multiplayer", apiBaseUrl, electricBaseUrl, workspaceId }.', { mode: mode.kind });
  }
}

/**
 * Where a workspace's rows come from.
 * @example
 * const mode: WorkspaceMode = { kind: "local", apiBaseUrl: "http://127.0.0.1:7331", token: "s3cret" };
 */
export type WorkspaceMode = LocalWorkspaceMode | MultiplayerWorkspaceMode;

/**
 * The headers of every `/v1/api/*` request and of the change stream: the caller's `headers`,
 * then the content type and `authorization: Bearer <mode.token>`, which win over conflicts
 * (header names compare case-insensitively).
 * @example
 * mergeHeaders({ kind: "local", apiBaseUrl: "", token: "t" }, { Authorization: "x", "x-trace": "1" }, "application/json");
 * // authorization: Bearer t, content-type: application/json, x-trace: 1
 */
export function mergeHeaders(mode: WorkspaceMode, headers: Record<string, string> | undefined, contentType?: string): Headers {
  const out = new Headers(headers);
  if (contentType !== undefined) out.set("content-type", contentType);
  if (mode.token !== undefined) out.set("authorization", `Bearer ${mode.token}`);
  return out;
}

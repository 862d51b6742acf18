/**
 * @module ui/views/members
 * Members (`/members`, team workspaces only): who belongs to the workspace and with which role
 * (`ext.workspace.members`), kept live by the workspace's `members` shape; an admin adds a
 * member, changes a role or removes one (`ext.workspace.addMember` / `removeMember`). The
 * roles are cumulative: read < launch < approve < admin (docs/multiplayer.md "Members and roles").
 * Offline, the list is the workspace's `members` shape as this browser last kept it, marked as
 * of when; adding, removing and changing roles need the Gateway, so they are disabled and say why.
 */
import { ShapeStream } from "@electric-sql/client";
import { createResource, createSignal, For, onCleanup, Show } from "solid-js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { EmptyState } from "../components/empty-state.js";
import { errorText } from "../components/error-text.js";
import { formatAgo, formatDateTime } from "../components/format.js";
import { lastAnswer } from "../components/last-answer.js";
import { useConnection } from "../flow-context.js";
import { memberFromRow, type MemberRow, notReached, WORKSPACE_ROLES, type WorkspaceRole } from "../../sync/index.js";
import type { LastSeen } from "../workspace/last-seen.js";
import { type TeamMember, teamRpc } from "../workspace/team-rpc.js";
import "../components/view-layout.css";
import "./members.css";

const ROLE_HELP: Record<string, string> = {
  read: "sees runs, approvals, crons and memory",
  launch: "read, plus launch, cancel and resume runs, send signals",
  approve: "launch, plus decide approvals",
  admin: "everything, plus manage members",
};

/**
 * The members view (a route of ui/app.tsx).
 * @example
 * <Route path="/members" component={Members} />
 */
export default function Members() {
  const conn = useConnection();
  return (
    <div class="members-view">
      <header class="view-header">
        <h1>Members</h1>
      </header>
      <Show when={conn.team} fallback={<EmptyState title="Members belong to team workspaces" hint="This workspace is yours alone. A team workspace is a Gateway with the team option (docs/multiplayer.md); open one in the workspace switcher." />}>
        {(team) => <MemberList url={conn.workspace.url ?? location.origin} token={conn.workspace.token} workspaceId={team().workspaceId} role={team().role} lastSeen={conn.lastSeen} />}
      </Show>
    </div>
  );
}

/** The members, from the Gateway; unreachable, the members shape as last kept here (`asOfMs`). */
async function readMembers(props: { url: string; token: string | undefined; lastSeen: LastSeen | undefined }): Promise<{ rows: TeamMember[]; asOfMs?: number }> {
  try {
    return { rows: await teamRpc(props.url, props.token, "members", {}) };
  } catch (error) {
    const kept = notReached(error) ? await props.lastSeen?.keptShape(`flow:${props.url}:members:shape`) : undefined;
    if (!kept) throw error;
    const rows = (kept.rows as MemberRow[]).map(memberFromRow).sort((a, b) => a.addedAtMs - b.addedAtMs || a.userId.localeCompare(b.userId));
    return { rows, asOfMs: kept.atMs };
  }
}

function MemberList(props: { url: string; token: string | undefined; workspaceId: string; role: string; lastSeen: LastSeen | undefined }) {
  const isAdmin = () => props.role === "admin" || !WORKSPACE_ROLES.includes(props.role as never);
  const [read, { refetch }] = createResource(() => readMembers(props));
  /** Why members cannot be changed now (offline), else undefined. */
  const offline = () => {
    const at = lastAnswer(read)?.asOfMs;
    return at === undefined ? undefined : `Members are changed through the workspace's Gateway, which this browser cannot reach now; this list is as of ${formatDateTime(at)}.`;
  };
  const [notice, setNotice] = createSignal<{ tone: "ok" | "bad"; text: string }>();
  const [busy, setBusy] = createSignal(false);
  const [removing, setRemoving] = createSignal<string>();

  // The members shape says when anyone changed the list; the list is then read again.
  const stream = new ShapeStream({ url: `${props.url}/sync/${props.workspaceId}/members`, headers: props.token ? { authorization: `Bearer ${props.token}` } : {} });
  let synced = false;
  const stop = stream.subscribe((messages) => {
    const changed = messages.some((m) => "value" in m);
    if (synced && changed) void refetch();
    if (messages.some((m) => "control" in m.headers && m.headers.control === "up-to-date")) synced = true;
  });
  onCleanup(() => {
    stop();
    stream.unsubscribeAll();
  });

  async function act(run: () => Promise<unknown>, done: string) {
    setBusy(true);
    try {
      await run();
      setNotice({ tone: "ok", text: done });
      await refetch();
    } catch (error) {
      setNotice({ tone: "bad", text: errorText(error) });
    } finally {
      setBusy(false);
    }
  }
  const setRole = (userId: string, role: WorkspaceRole) => act(() => teamRpc(props.url, props.token, "addMember", { userId, role }), `${userId}'s role is now ${role}.`);
  /** Removes a member (from the confirmation dialog, which shows a refusal). */
  const remove = async (userId: string) => {
    await teamRpc(props.url, props.token, "removeMember", { userId });
    setNotice({ tone: "ok", text: `Removed ${userId}.` });
    await refetch();
  };
  const add = (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const userId = String(data.get("userId") ?? "").trim();
    if (!userId) return;
    void act(() => teamRpc(props.url, props.token, "addMember", { userId, role: String(data.get("role")) as WorkspaceRole }), `Added ${userId}.`).then(() => form.reset());
  };

  return (
    <>
      <p class="muted members-you" data-testid="team-role">
        Workspace <strong>{props.workspaceId}</strong> · your role: <span class="badge tone-info">{props.role}</span>
      </p>
      <Show when={offline()}>
        {(why) => (
          <p class="members-notice tone-warn" role="status" data-testid="members-offline">
            {why()}
          </p>
        )}
      </Show>
      <Show when={notice()}>
        {(n) => (
          <p class={`members-notice tone-${n().tone}`} role="status">
            {n().text}
          </p>
        )}
      </Show>
      <Show when={!read.error} fallback={<div class="error-banner" role="alert">Could not read the members: {errorText(read.error)}</div>}>
        <Show when={lastAnswer(read)} fallback={<p class="muted">Loading members…</p>}>
          <Show when={(lastAnswer(read)?.rows ?? []).length} fallback={<EmptyState title="No members yet" hint="Only the workspace's owners (team.owners on the Gateway) can open it. Add your team below." />}>
            <div class="card table-scroll">
              <table class="members-table">
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Role</th>
                    <th scope="col">Added</th>
                    <Show when={isAdmin()}>
                      <th scope="col">
                        <span class="sr-only">Actions</span>
                      </th>
                    </Show>
                  </tr>
                </thead>
                <tbody>
                  <For each={lastAnswer(read)?.rows}>
                    {(m) => (
                      <tr data-testid="member-row" data-user-id={m.userId} data-role={m.role}>
                        <td class="mono">{m.userId}</td>
                        <td>
                          <Show when={isAdmin()} fallback={<span title={ROLE_HELP[m.role]}>{m.role}</span>}>
                            <select aria-label={`Role of ${m.userId}`} value={m.role} disabled={busy() || offline() !== undefined} title={offline()} onChange={(e) => void setRole(m.userId, e.currentTarget.value as WorkspaceRole)}>
                              <For each={WORKSPACE_ROLES}>{(r) => <option value={r}>{r}</option>}</For>
                            </select>
                          </Show>
                        </td>
                        <td class="muted">
                          {formatAgo(m.addedAtMs, Date.now())}
                          <Show when={m.addedBy}> by {m.addedBy}</Show>
                        </td>
                        <Show when={isAdmin()}>
                          <td class="members-actions">
                            <button type="button" class="danger" disabled={busy() || offline() !== undefined} title={offline()} onClick={() => setRemoving(m.userId)} aria-label={`Remove ${m.userId}`}>
                              Remove
                            </button>
                          </td>
                        </Show>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
          </Show>
        </Show>
      </Show>
      <Show when={isAdmin()} fallback={<p class="muted">Only admins add and remove members.</p>}>
        <form class="card members-add" onSubmit={add} data-testid="member-add-form">
          <h2>Add a member</h2>
          <label>
            User id
            <input name="userId" required autocomplete="off" placeholder="bea" />
          </label>
          <label>
            Role
            <select name="role">
              <For each={WORKSPACE_ROLES}>{(r) => <option value={r} selected={r === "launch"}>{`${r}: ${ROLE_HELP[r]}`}</option>}</For>
            </select>
          </label>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy() || offline() !== undefined} title={offline()} data-testid="member-add">
              Add member
            </button>
          </div>
          <p class="muted members-hint">The user id is the one the Gateway's sign-in gives them (a token's userId, a JWT's sub). Adding an existing member changes their role.</p>
        </form>
      </Show>
      <ConfirmDialog
        open={removing() !== undefined}
        title={`Remove ${removing() ?? ""} from the workspace?`}
        confirmLabel="Remove member"
        tone="danger"
        testId="member-remove-dialog"
        onConfirm={() => remove(removing()!)}
        onClose={() => setRemoving(undefined)}
      >
        They stop seeing the workspace's runs and approvals at once; their runs and decisions are kept. Add them again to give access back.
      </ConfirmDialog>
    </>
  );
}

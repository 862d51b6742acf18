/**
 * @module ui/workspace/not-member
 * What a signed-in user who is not a member of a Gateway's team workspace sees instead of the
 * views (connect.ts throws WORKSPACE_NOT_MEMBER): no runs, no approvals, a plain statement of
 * why and what to do, and a form to sign in with another token.
 */
import { useFlow } from "../flow-context.js";
import { TokenPrompt } from "./token-prompt.js";
import "./not-member.css";

/**
 * Whether opening the workspace failed because the user is no member of its team.
 * @example
 * <Show when={isNotMemberError(flow.connection.error)}><NotMember /></Show>
 */
export function isNotMemberError(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === "WORKSPACE_NOT_MEMBER";
}

/**
 * The "not a member" state.
 * @example
 * <NotMember />
 */
export function NotMember() {
  const flow = useFlow();
  return (
    <div class="not-member">
      <section class="card not-member-card" data-testid="not-a-member" role="alert">
        <h2>You are not a member of this team workspace</h2>
        <p>{String((flow.connection.error as Error | undefined)?.message ?? "")}</p>
        <p class="muted">Nothing of the workspace is shown or sent to this browser until an admin adds you in its Members view.</p>
      </section>
      <TokenPrompt title="Sign in with another token" />
    </div>
  );
}

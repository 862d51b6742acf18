/**
 * @module ui/workspace/token-prompt
 * Asks for a Gateway's token when its API answered 401 (connect.ts throws UNAUTHORIZED): the
 * Gateway serves the app's files to anyone, its API only to token holders. The token is kept
 * in this browser only (localStorage, with the workspace) and sent as a bearer token.
 */
import { createSignal, Show } from "solid-js";
import { useFlow } from "../flow-context.js";
import "./token-prompt.css";

/**
 * Whether an error is the Gateway asking for a token.
 * @example
 * <Show when={isTokenError(flow.connection.error)}><TokenPrompt /></Show>
 */
export function isTokenError(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === "UNAUTHORIZED";
}

/**
 * The form: the token, then the workspace opens again with it. `title` replaces the heading
 * (and hides the error's message, said above it by the caller).
 * @example
 * <TokenPrompt />
 */
export function TokenPrompt(props: { title?: string }) {
  const flow = useFlow();
  const [token, setToken] = createSignal("");
  const message = () => String((flow.connection.error as Error | undefined)?.message ?? "");
  return (
    <form
      class="card token-prompt"
      data-testid="token-prompt"
      onSubmit={(e) => {
        e.preventDefault();
        if (token().trim()) flow.setToken(token().trim());
      }}
    >
      <h2>{props.title ?? `Sign in to ${flow.workspace().name}`}</h2>
      <Show when={!props.title}>
        <p class="muted" role="alert">
          {message()}
        </p>
      </Show>
      <label for="gateway-token">Token</label>
      <input id="gateway-token" name="token" type="password" autocomplete="off" required value={token()} onInput={(e) => setToken(e.currentTarget.value)} data-testid="token-input" />
      <p class="muted token-prompt-hint">Kept in this browser only and sent as a bearer token to this Gateway.</p>
      <button type="submit" class="primary" data-testid="token-submit" disabled={!token().trim()}>
        Open
      </button>
    </form>
  );
}

/**
 * @module ui/app
 * The app: routes inside the shell (header with workspace switcher, connection status, nav,
 * theme). Views are loaded on demand. Routes (docs/app.md "Views"):
 * `/runs` (list, filters in the query string), `/runs/:runId` (detail; `?node=<id>#<iter>`
 * selects a node), `/compare?a=<runId>&b=<runId>` (two runs side by side), `/launch/:workflow?`, `/approvals`, `/memory`, `/scores`, `/crons`, `/members` (team workspaces), `/settings` (model keys).
 */
import { Navigate, Route, Router } from "@solidjs/router";
import { lazy } from "solid-js";
import { readBoot } from "./boot.js";
import { FlowProvider } from "./flow-context.js";
import { Shell } from "./shell.js";

const RunsList = lazy(() => import("./views/runs-list.js"));
const RunDetail = lazy(() => import("./views/run-detail.js"));
const Compare = lazy(() => import("./views/compare.js"));
const Launch = lazy(() => import("./views/launch.js"));
const Approvals = lazy(() => import("./views/approvals.js"));
const Memory = lazy(() => import("./views/memory.js"));
const Scores = lazy(() => import("./views/scores.js"));
const Crons = lazy(() => import("./views/crons.js"));
const Members = lazy(() => import("./views/members.js"));
const Settings = lazy(() => import("./views/settings.js"));

/**
 * Starts loading the view the page opens on while the app itself starts (a lazy view would
 * otherwise be asked for only once the workspace is open).
 */
function preloadFirstView(base: string) {
  const path = base === "/" ? location.pathname : location.pathname.slice(base.length);
  const [, first = "runs", second] = path.split("/");
  const views: Record<string, { preload(): unknown }> = { runs: second ? RunDetail : RunsList, compare: Compare, launch: Launch, approvals: Approvals, memory: Memory, scores: Scores, crons: Crons, members: Members, settings: Settings };
  void (views[first] ?? RunsList).preload();
}

/**
 * The whole app.
 * @example
 * render(() => <App />, document.getElementById("root")!);
 */
export function App() {
  const boot = readBoot();
  preloadFirstView(boot.base);
  return (
    <FlowProvider>
      <Router base={boot.base === "/" ? "" : boot.base} root={Shell}>
        <Route path="/" component={() => <Navigate href="/runs" />} />
        <Route path="/runs" component={RunsList} />
        <Route path="/runs/:runId" component={RunDetail} />
        <Route path="/compare" component={Compare} />
        <Route path="/launch/:workflow?" component={Launch} />
        <Route path="/approvals" component={Approvals} />
        <Route path="/memory" component={Memory} />
        <Route path="/scores" component={Scores} />
        <Route path="/crons" component={Crons} />
        <Route path="/members" component={Members} />
        <Route path="/settings" component={Settings} />
        <Route path="*" component={() => <Navigate href="/runs" />} />
      </Router>
    </FlowProvider>
  );
}

/**
 * The UIs a Gateway and a serve app mount (node/server/ui/), over real HTTP: the built-in app
 * at `/console` and `/` (a stand-in build in a temp dir via FLOW_APP_DIR), deep links, content
 * types and caching, `sw.js`, the page when the app is not built, an entry module bundled with
 * esbuild (and rebuilt after a failed build is fixed), workflow UIs, and a serve app's UI.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFlow, createServeApp, FlowDb, Gateway } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { startTestGateway } from "./gateway-testing.js";
import { listenForTest } from "./testing.js";

const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <base href="/" />
    <title>Flow</title>
    <!--flow-boot-->
    <script type="module" crossorigin src="./assets/index-Ab12Cd34.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`;

/** A stand-in `dist/app/`: index.html with the boot marker, one hashed asset, a service worker. */
function fakeApp(): string {
  const dir = join(tempDir("flow-app-"), "app");
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), INDEX);
  writeFileSync(join(dir, "assets", "index-Ab12Cd34.js"), "console.log('app');");
  writeFileSync(join(dir, "assets", "pglite-Zz99Yy88.wasm"), new Uint8Array([0, 97, 115, 109]));
  writeFileSync(join(dir, "sw.js"), "self.addEventListener('fetch', () => {});");
  writeFileSync(join(dir, ".build-stamp.json"), "{}");
  return dir;
}

/** The boot data a page carries. */
function bootOf(html: string): Record<string, any> {
  const m = /window\.__FLOW_BOOT__ = (.*?);<\/script>/.exec(html);
  expect(m, "the page carries window.__FLOW_BOOT__").not.toBeNull();
  return JSON.parse(m![1]!) as Record<string, any>;
}

let appDir: string;
beforeEach(() => {
  appDir = fakeApp();
  process.env.FLOW_APP_DIR = appDir;
});
afterEach(() => {
  delete process.env.FLOW_APP_DIR;
});

describe("Gateway UI serving", () => {
  it("serves the console at /console without a token (the API still asks for one): deep links, assets, sw.js, boot data", async () => {
    const t = await startTestGateway({ auth: { mode: "token", tokens: { s3cret: { role: "operator", scopes: ["*"] } } }, operatorUi: { title: "Ops </script><b>", props: { team: "a</script>b" } } });
    for (const path of ["/console", "/console/", "/console/runs/r1?status=running", "/console/index.html"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const html = await res.text();
      expect(html).toContain('<base href="/console/" />');
      expect(html).not.toContain('<base href="/" />');
      expect(html).toContain("<title>Ops &lt;/script&gt;&lt;b&gt;</title>");
      expect(html.match(/<\/script>/g)).toHaveLength(2); // the boot script's and the module script's own
      expect(bootOf(html)).toEqual({ base: "/console", title: "Ops </script><b>", gateway: { url: t.url }, props: { team: "a</script>b" } });
    }
    const js = await fetch(`${t.url}/console/assets/index-Ab12Cd34.js`);
    expect([js.status, js.headers.get("content-type"), js.headers.get("cache-control")]).toEqual([200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"]);
    expect(await js.text()).toBe("console.log('app');");
    const wasm = await fetch(`${t.url}/console/assets/pglite-Zz99Yy88.wasm`);
    expect([wasm.headers.get("content-type"), new Uint8Array(await wasm.arrayBuffer())[1]]).toEqual(["application/wasm", 97]);
    const sw = await fetch(`${t.url}/console/sw.js`);
    expect([sw.status, sw.headers.get("service-worker-allowed"), sw.headers.get("cache-control")]).toEqual([200, "/console/", "no-cache"]);
    const head = await fetch(`${t.url}/console/assets/index-Ab12Cd34.js`, { method: "HEAD" });
    expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([200, "text/javascript; charset=utf-8", ""]);
    // Missing files are 404s, not the page; hidden files and paths out of the build are never served.
    for (const path of ["/console/assets/gone-00000000.js", "/console/missing.css", "/console/.build-stamp.json", "/console/..%2f..%2fpackage.json"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(404);
    }
    // The API keeps its routes and its auth.
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    expect((await fetch(`${t.url}/v1/api/runs`)).status).toBe(401);
    expect((await fetch(`${t.url}/v1/api/runs`, { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
    expect((await fetch(`${t.url}/workflows`)).status).toBe(401);
    // No UI at `/` unless `ui` says so.
    const root = await fetch(`${t.url}/`);
    expect(root.status).toBe(401);
    expect(t.gateway.ui.paths).toEqual(["/console"]);
  });

  it("mounts the app at / with ui: true (beside the console), a workflow UI at /workflows/<key>, and refuses two UIs on one path", async () => {
    const entryDir = tempDir("flow-ui-entry-");
    writeFileSync(join(entryDir, "label.ts"), `export const label = "review board";\n`);
    writeFileSync(join(entryDir, "main.ts"), `import { label } from "./label";\ndocument.title = label + " " + JSON.stringify((window as any).__FLOW_BOOT__.props);\n`);
    const t = await startTestGateway({ ui: true }, { deploy: { ui: { entry: join(entryDir, "main.ts"), props: { lane: "prod" } } } });
    expect(t.gateway.ui.paths).toEqual(["/workflows/deploy", "/console", "/"]);
    const deep = await (await fetch(`${t.url}/runs/r1/nodes/build`)).text();
    expect(bootOf(deep)).toMatchObject({ base: "/", title: "Flow" });
    expect(deep).toContain('<base href="/" />');
    expect((await fetch(`${t.url}/assets/index-Ab12Cd34.js`)).status).toBe(200);
    expect(((await (await fetch(`${t.url}/workflows`)).json()) as { ok: boolean }).ok).toBe(true);
    for (const api of ["/v1/api/nope", "/sync/acme/runs", "/webhooks/deploy"]) expect((await fetch(`${t.url}${api}`)).status, api).toBe(404);
    expect((await fetch(`${t.url}/v1/api/nope`)).headers.get("content-type")).toContain("application/json");

    const page = await (await fetch(`${t.url}/workflows/deploy`)).text();
    expect(bootOf(page)).toEqual({ base: "/workflows/deploy", title: "deploy", gateway: { url: t.url }, props: { workflow: "deploy", lane: "prod" } });
    const script = /src="(assets\/main-[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${t.url}/workflows/deploy/${script}`);
    expect([js.status, js.headers.get("cache-control")]).toEqual([200, "public, max-age=31536000, immutable"]);
    expect(await js.text()).toContain("review board");

    expect(() => new Gateway({ ui: true, operatorUi: { path: "/" } })).toThrow(/Two UIs are mounted at \//);
    expect(() => new Gateway({ operatorUi: { path: "/v1/console" } })).toThrow(/the API answers there/);
    expect(t.gateway.ui.paths).toHaveLength(3);
  });

  it("answers a page saying how to build the app when dist/app is missing, and the API goes on", async () => {
    rmSync(appDir, { recursive: true });
    const t = await startTestGateway();
    for (const path of ["/console", "/console/runs"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const html = await res.text();
      expect(html).toContain("npm run build:app");
      expect(html).toContain(appDir);
    }
    expect((await fetch(`${t.url}/console/assets/index-Ab12Cd34.js`)).status).toBe(404);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    const off = await startTestGateway({ operatorUi: false });
    expect(off.gateway.ui.paths).toEqual([]);
    expect((await fetch(`${off.url}/console`)).status).toBe(404);
  });

  it("bundles a ui entry on first request; a build error answers a page with esbuild's message, and the fixed file serves again", async () => {
    const dir = tempDir("flow-ui-entry-");
    const entry = join(dir, "app.ts");
    writeFileSync(entry, `const n: number = 41;\ndocument.body.dataset.answer = String(n + 1);\n`);
    const t = await startTestGateway({ ui: { entry: "app.ts", title: "Answers" }, workspaceRoot: dir, operatorUi: false });
    const first = await fetch(`${t.url}/`);
    expect(first.status).toBe(200);
    const html = await first.text();
    expect(bootOf(html)).toMatchObject({ base: "/", title: "Answers" });
    const src = /src="(assets\/app-[^"]+\.js)"/.exec(html)![1]!;
    expect(await (await fetch(`${t.url}/${src}`)).text()).toContain("String(42)");

    writeFileSync(entry, `const n: number = ;\n`);
    const broken = await fetch(`${t.url}/`);
    expect(broken.status).toBe(500);
    const message = await broken.text();
    expect(message).toContain("The UI did not build");
    expect(message).toMatch(/app\.ts:1:\d+: Unexpected &quot;;&quot;/);

    writeFileSync(entry, `document.body.dataset.answer = "fixed";\n`);
    const fixed = await fetch(`${t.url}/`);
    expect(fixed.status).toBe(200);
    const src2 = /src="(assets\/app-[^"]+\.js)"/.exec(await fixed.text())![1]!;
    expect(src2).not.toBe(src);
    expect(await (await fetch(`${t.url}/${src2}`)).text()).toContain("fixed");
    expect((await fetch(`${t.url}/${src}`)).status).toBe(200); // a page loaded before the rebuild keeps its assets
  });
});

describe("createServeApp UI", () => {
  it("serves the workflow's ui at / with the run id in its boot props; the run's routes keep their auth", async () => {
    const api = createFlow({}, { dbPath: join(tempDir(), "flow.db") });
    const workflow = api.flow(() => <api.Workflow name="ship" />);
    workflow.readableName = "ship";
    workflow.ui = { kind: "ui", title: "Ship it" };
    const app = createServeApp({ workflow, adapter: new FlowDb(workflow.db), runId: "r9", abort: new AbortController(), authToken: "k" });
    const { url } = await listenForTest(app.fetch);
    const page = await fetch(`${url}/runs/r9`);
    expect(page.status).toBe(200);
    expect(bootOf(await page.text())).toEqual({ base: "/", title: "Ship it", gateway: { url }, props: { workflow: "ship", runId: "r9" } });
    expect((await fetch(`${url}/assets/index-Ab12Cd34.js`)).status).toBe(200);
    expect((await fetch(`${url}/run`)).status).toBe(401);
    expect((await fetch(`${url}/events`)).status).toBe(401);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});

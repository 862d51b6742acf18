import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lazyPackage } from "./lazy-package.js";

// Outside Node (a browser bundle) a declared package is loaded by its `load`; in a page only once
// the page is idle after its first render, so the page's first view is not held behind it.
describe("lazyPackage outside Node", () => {
  const proc = process as { getBuiltinModule?: unknown };
  const builtin = proc.getBuiltinModule;
  const scope = globalThis as { document?: unknown; requestIdleCallback?: unknown };
  beforeEach(() => void (proc.getBuiltinModule = undefined));
  afterEach(() => {
    proc.getBuiltinModule = builtin;
    delete scope.document;
    delete scope.requestIdleCallback;
  });

  it("starts loading at once in a worker (no document)", async () => {
    let loads = 0;
    const lib = lazyPackage(import.meta, "some-lib", async () => (loads++, { name: "some-lib" }));
    expect(loads).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(lib().name).toBe("some-lib");
  });

  it("waits for the page to be idle before loading, and says the package is still loading meanwhile", async () => {
    const idle: (() => void)[] = [];
    scope.document = {};
    scope.requestIdleCallback = (fn: () => void) => void idle.push(fn);
    let loads = 0;
    const lib = lazyPackage(import.meta, "some-lib", async () => (loads++, { name: "some-lib" }));
    expect(loads).toBe(0);
    expect(() => lib()).toThrow(/some-lib package is still loading/);
    idle.shift()!();
    expect(loads).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(lib().name).toBe("some-lib");
  });
});

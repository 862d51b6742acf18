import { describe, expect, it } from "vitest";
import { type LastSeenStore, rememberLast } from "./last-seen.js";

const unavailable = Object.assign(new Error("No Flow gateway answered"), { code: "GATEWAY_UNAVAILABLE" });

function memoryStore(): LastSeenStore & { kept: Map<string, unknown> } {
  const kept = new Map<string, unknown>();
  return { kept, save: (id, v) => void kept.set(id, v), load: async (id) => kept.get(id) };
}

describe("rememberLast: the rows a collection loaded last", () => {
  it("saves a load that succeeds and serves it when no gateway answers", async () => {
    const store = memoryStore();
    let answer: () => Promise<string[]> = async () => ["r1", "r2"];
    const load = rememberLast(store, "runs", () => answer());
    expect(await load()).toEqual(["r1", "r2"]);
    await new Promise((r) => setTimeout(r, 0));
    expect(store.kept.get("runs")).toEqual(["r1", "r2"]);
    answer = async () => {
      throw unavailable;
    };
    expect(await load()).toEqual(["r1", "r2"]);
  });

  it("throws what is not a missing gateway, and a missing gateway when nothing was saved", async () => {
    const store = memoryStore();
    store.kept.set("runs", ["old"]);
    const refused = Object.assign(new Error("no"), { code: "UNAUTHORIZED" });
    await expect(rememberLast(store, "runs", async () => Promise.reject(refused))()).rejects.toBe(refused);
    await expect(rememberLast(store, "crons", async () => Promise.reject(unavailable))()).rejects.toBe(unavailable);
    expect(await rememberLast(undefined, "runs", async () => ["live"])()).toEqual(["live"]);
  });

  it("answers the saved value at once while the source is warming, and the live one after", async () => {
    const store = memoryStore();
    store.kept.set("runs", ["seen"]);
    let warming = true;
    let asked = 0;
    const never = new Promise<string[]>(() => undefined);
    const load = rememberLast({ ...store, warming: () => warming }, "runs", () => (asked++, warming ? never : Promise.resolve(["live"])));
    expect(await load()).toEqual(["seen"]);
    expect(asked).toBe(0);
    // Nothing saved: it waits for the source.
    const crons = rememberLast({ ...store, warming: () => warming }, "crons", async () => ["c1"]);
    expect(await crons()).toEqual(["c1"]);
    warming = false;
    expect(await load()).toEqual(["live"]);
  });
});

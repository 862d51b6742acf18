/**
 * @module core/memory/effect
 * The one seam between memory's Promise code and the Effect library (STYLE.md "one async style
 * per layer"): every `...Effect` twin is derived here, mechanically, from its Promise method,
 * and fails with a typed `FlowError`. Nothing else in memory imports `effect`. See
 * docs/memory.md ("Effect twins").
 *
 * `effect` loads when a twin is first called or `MemoryService` first touched, not when Flow is
 * imported (core/util/lazy-package.ts).
 */
import type { Context, Effect, Layer } from "effect";
import { FlowError } from "../errors.js";
import { lazyPackage } from "../util/index.js";
import type { MemoryStore } from "./store.js";
import type { MemoryStoreApi } from "./types.js";

// biome-ignore lint: a twin is derived for any method signature.
type AnyAsync = (...args: any[]) => Promise<unknown>;

/** The `...Effect` twin of every Promise method of `T`. */
export type EffectTwins<T> = {
  [K in keyof T & string as T[K] extends AnyAsync ? `${K}Effect` : never]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Effect.Effect<R, FlowError> : never;
};

/** The Effect form of every Promise method of `T`, under the same names. */
export type AsEffects<T> = {
  [K in keyof T & string as T[K] extends AnyAsync ? K : never]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Effect.Effect<R, FlowError> : never;
};

/** The `effect` library, loaded on first use. */
const effectLib = lazyPackage<typeof import("effect")>(import.meta, "effect", () => import("effect"));

/** Lifts a Promise function into an Effect that fails with its FlowError (anything else is wrapped). */
export function effectOf<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Effect.Effect<R, FlowError> {
  return (...args) => effectLib().Effect.tryPromise({ try: () => fn(...args), catch: (error) => FlowError.from(error) });
}

function promiseMethods<T extends object>(api: T): Array<[string, AnyAsync]> {
  const out: Array<[string, AnyAsync]> = [];
  for (const key of Object.keys(api)) {
    const value = (api as Record<string, unknown>)[key];
    if (typeof value === "function" && !key.endsWith("Effect")) out.push([key, (value as AnyAsync).bind(api)]);
  }
  return out;
}

/** Adds the `...Effect` twin of each method of a Promise api (the object is returned, extended). */
export function withEffectTwins<T extends object>(api: T): T & EffectTwins<T> {
  for (const [key, fn] of promiseMethods(api)) Object.defineProperty(api, `${key}Effect`, { value: effectOf(fn), enumerable: true });
  return api as T & EffectTwins<T>;
}

/** A copy of a Promise api whose methods return Effects, under the same names. */
export function asEffects<T extends object>(api: T): AsEffects<T> {
  return Object.fromEntries(promiseMethods(api).map(([key, fn]) => [key, effectOf(fn)])) as AsEffects<T>;
}

/** The value of `MemoryService`: every store operation as an Effect, plus the Promise `store`. */
export type MemoryServiceApi = AsEffects<MemoryStoreApi> & { readonly store: MemoryStore };

/**
 * The memory service of an Effect program (SPEC.md `MemoryService`), provided by
 * `createMemoryLayer({ db })`.
 * @example
 * const program = Effect.gen(function* () {
 *   const memory = yield* MemoryService;
 *   yield* memory.setFact({ kind: "user", id: "u1" }, "theme", "dark");
 *   return yield* memory.getFact({ kind: "user", id: "u1" }, "theme");
 * });
 * await Effect.runPromise(Effect.provide(program, createMemoryLayer({ db: api.db })));
 */
export const MemoryService: Context.Service<MemoryServiceApi, MemoryServiceApi> = lazyService<MemoryServiceApi>("durable-flow/MemoryService");

/** The layer that provides `MemoryService` over a store. */
export function memoryLayerOf(store: MemoryStore): Layer.Layer<MemoryServiceApi> {
  return effectLib().Layer.succeed(MemoryService, { ...asEffects<MemoryStoreApi>(store), store });
}

/**
 * A service key made on first use: a proxy that forwards every operation to the key
 * `Context.Service(key)` returns, created once `effect` is loaded. Effect finds services by
 * their `key` string, so the proxy and the key it forwards to are the same service.
 */
function lazyService<S>(key: string): Context.Service<S, S> {
  let real: object | undefined;
  const target = () => (real ??= effectLib().Context.Service<S>(key) as object);
  const handler: ProxyHandler<object> = {
    get: (_, p) => Reflect.get(target(), p),
    has: (_, p) => Reflect.has(target(), p),
    set: (_, p, v) => Reflect.set(target(), p, v),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, p) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), p);
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
    apply: (_, self, args) => Reflect.apply(target() as (...a: unknown[]) => unknown, self, args),
  };
  return new Proxy(function lazyServiceKey() {}, handler) as unknown as Context.Service<S, S>;
}


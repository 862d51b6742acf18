/**
 * @module browser/worker
 * The engine in a Web Worker: the worker's domain API served over comlink, and the tab channel
 * that lets one tab own the worker. browser/client.ts is its caller.
 */
export type { EngineRole, EngineWorkerApi } from "./engine-worker.js";

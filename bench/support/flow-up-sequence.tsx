/**
 * The workflow `bench/first-run.tsx --cli` runs with `flow up`: FLOW_BENCH_TASKS (default 1,000)
 * compute tasks in a Sequence, its store in `.flow/` of the directory the command runs in.
 *
 *   FLOW_BENCH_TASKS=100 npx flow up bench/support/flow-up-sequence.tsx --root-dir <dir>
 */
import { computeSequence } from "./compute-sequence.js";

export default computeSequence(Number(process.env.FLOW_BENCH_TASKS ?? 1_000));

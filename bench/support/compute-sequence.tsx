/**
 * The workflow `bench/first-run.tsx --cli` runs with `flow up`: a Sequence of FLOW_BENCH_TASKS
 * (default 1,000) compute tasks that touch no file, its store in `.flow/` of the directory the
 * command runs in.
 *
 *   FLOW_BENCH_TASKS=100 npx flow up bench/support/compute-sequence.tsx --root-dir <dir>
 */
import { z } from "zod";
import { createFlow } from "durable-flow";

const TASKS = Number(process.env.FLOW_BENCH_TASKS ?? 1_000);
const { flow, Workflow, Task, Sequence, outputs } = createFlow({ step: z.object({ i: z.number() }) });

export default flow(() => (
  <Workflow name="bench-compute-sequence">
    <Sequence>
      {Array.from({ length: TASKS }, (_, i) => (
        <Task key={i} id={`t${i}`} output={outputs.step}>
          {() => ({ i })}
        </Task>
      ))}
    </Sequence>
  </Workflow>
));

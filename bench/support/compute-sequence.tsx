/**
 * A Sequence of `tasks` compute tasks that touch no file: what bench/first-run.tsx runs, in a
 * script's process and with `flow up` (bench/support/flow-up-sequence.tsx).
 * @example
 * const wf = computeSequence(1_000, { dbPath: "/tmp/bench/flow.db" });
 */
import { z } from "zod";
import { createFlow, type FlowWorkflow } from "durable-flow";

export function computeSequence(tasks: number, options?: Parameters<typeof createFlow>[1]): FlowWorkflow {
  const { flow, Workflow, Task, Sequence, outputs } = createFlow({ step: z.object({ i: z.number() }) }, options);
  return flow(() => (
    <Workflow name="bench-compute-sequence">
      <Sequence>
        {Array.from({ length: tasks }, (_, i) => (
          <Task key={i} id={`t${i}`} output={outputs.step}>
            {() => ({ i })}
          </Task>
        ))}
      </Sequence>
    </Workflow>
  ));
}

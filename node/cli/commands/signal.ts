/**
 * @module node/cli/commands/signal
 * `flow signal <name> (--run-id <id> | --correlation-id <id>) --payload '<json>'`: delivers a
 * signal (or, with `--event`, an event) through `submitSignal` / `submitEvent`. See docs/cli.md
 * ("Waiting runs").
 */
import { submitEvent, submitSignal } from "../../../core/engine/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { DB_HELP, parseCli, parseJsonArg, printer, resumeHint, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow signal <name> (--run-id <id> | --correlation-id <id>) --payload '<json>' [options]

Delivers a signal to a <Signal id="<name>">, or with --event an event to a
<WaitForEvent event="<name>">, of the run given by id or waiting on the correlation id. The
delivery is stored at once; a run that is not waiting yet takes it when it gets there. The
same --delivery-id twice is delivered once.

Options:
  --run-id <id>          The run to deliver to
  --correlation-id <id>  Or: whichever run waits on this correlation id
  --payload <json>       The signal's data (required; validated by the Signal's schema)
  --delivery-id <id>     Idempotency key (default: a fresh id)
  --event                Deliver an event (WaitForEvent) instead of a signal
${WORKFLOW_HELP}
${DB_HELP}`;

export const signalCommand: CliCommand = {
  name: "signal",
  summary: "Deliver a signal or event to a waiting run",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, {
      ...STORE_OPTIONS,
      "run-id": { type: "string" },
      "correlation-id": { type: "string" },
      payload: { type: "string" },
      "delivery-id": { type: "string" },
      event: { type: "boolean" },
    });
    const [name, extra] = positionals;
    if (!name || extra !== undefined) throw new UsageError("give the signal's name.");
    const given = values["run-id"];
    const correlationId = values["correlation-id"];
    if ((given === undefined) === (correlationId === undefined)) throw new UsageError("give either --run-id or --correlation-id.");
    const payload = parseJsonArg(values.payload, "--payload");
    return withStore(io, values, async (db) => {
      const runId = given === undefined ? undefined : await resolveRunId(db, given);
      const input = {
        name,
        payload,
        ...(runId !== undefined ? { runId } : {}),
        ...(correlationId !== undefined ? { correlationId } : {}),
        ...(values["delivery-id"] !== undefined ? { deliveryId: values["delivery-id"] } : {}),
      };
      const result = values.event ? await submitEvent(db, input) : await submitSignal(db, input);
      const kind = values.event ? "event" : "signal";
      const target = runId !== undefined ? `run ${runId}` : `correlation id ${correlationId}`;
      const text =
        result.status === "duplicate"
          ? `Delivery ${result.deliveryId} was made before; nothing changed.\n`
          : `Delivered ${kind} "${name}" to ${target} (delivery ${result.deliveryId}).\n${runId !== undefined ? resumeHint(runId, values) : "flow wake lists the runs it lets continue.\n"}`;
      printer(io, values.json)(result, text);
      return 0;
    });
  },
};

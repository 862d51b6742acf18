import { describe, expect, it } from "vitest";
import { describeCron, nextFirings } from "./cron-text.js";

describe("cron text", () => {
  it("words the common shapes and leaves the others to the expression", () => {
    expect(describeCron("*/15 * * * *")).toBe("every 15 minutes");
    expect(describeCron("0 * * * *")).toBe("every hour");
    expect(describeCron("30 2 * * *")).toBe("every day at 02:30");
    expect(describeCron("0 9 * * 1-5")).toBe("weekdays at 09:00");
    expect(describeCron("0 9 * * 1")).toBe("every Monday at 09:00");
    expect(describeCron("0 9 1 * *")).toBe("monthly on day 1 at 09:00");
    expect(describeCron("0 9 * 1 *")).toBeNull();
    expect(describeCron("*/5 * * * * *")).toBeNull();
  });

  it("lists the next firings, or says why the expression is not one", () => {
    const from = Date.UTC(2026, 0, 1, 10, 7);
    const next = nextFirings("*/15 * * * *", from, 2);
    expect(next.ok).toBe(true);
    expect((next as { times: number[] }).times.map((t) => new Date(t).getUTCMinutes())).toEqual([15, 30]);
    expect(nextFirings("61 * * * *", from)).toMatchObject({ ok: false, error: expect.stringMatching(/^Not a cron expression/) });
    expect(nextFirings(" ", from)).toMatchObject({ ok: false });
  });
});

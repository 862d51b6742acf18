/**
 * @module ui/views/crons/cron-text
 * Cron expressions as people read them: a sentence for the common shapes ("every 15 minutes",
 * "weekdays at 09:00"), and the next firings (croner, as the Gateway's scheduler reads them)
 * or why the expression is not one.
 */
import { Cron } from "croner";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const two = (n: string) => n.padStart(2, "0");
const isNum = (s: string) => /^\d+$/.test(s);

/**
 * A sentence for a five-field expression of a common shape, else null (show the expression).
 * @example
 * describeCron("*\/15 * * * *"); // "every 15 minutes"
 * describeCron("0 9 * * 1-5"); // "weekdays at 09:00"
 */
export function describeCron(schedule: string): string | null {
  const f = schedule.trim().split(/\s+/);
  if (f.length !== 5) return null;
  const [min, hour, dom, month, dow] = f as [string, string, string, string, string];
  if (month !== "*") return null;
  const every = /^\*\/(\d+)$/;
  if (dom === "*" && dow === "*") {
    if (min === "*" && hour === "*") return "every minute";
    if (every.test(min) && hour === "*") return `every ${every.exec(min)![1]} minutes`;
    if (isNum(min) && hour === "*") return min === "0" ? "every hour" : `every hour at :${two(min)}`;
    if (isNum(min) && every.test(hour)) return `every ${every.exec(hour)![1]} hours at :${two(min)}`;
  }
  if (!isNum(min) || !isNum(hour)) return null;
  const at = `at ${two(hour)}:${two(min)}`;
  if (dom === "*" && dow === "*") return `every day ${at}`;
  if (dom === "*" && dow === "1-5") return `weekdays ${at}`;
  if (dom === "*" && (dow === "0,6" || dow === "6,0")) return `weekends ${at}`;
  if (dom === "*" && isNum(dow) && Number(dow) <= 7) return `every ${DAYS[Number(dow) % 7]} ${at}`;
  if (isNum(dom) && dow === "*") return `monthly on day ${dom} ${at}`;
  return null;
}

/**
 * The next `n` firings of an expression after `afterMs`, or the reason it is not one.
 * @example
 * nextFirings("0 9 * * *", Date.now(), 3); // { ok: true, times: [ms, ms, ms] }
 */
export function nextFirings(schedule: string, afterMs: number, n = 3): { ok: true; times: number[] } | { ok: false; error: string } {
  if (!schedule.trim()) return { ok: false, error: "Give a cron expression: five fields (minute hour day month weekday), or six with seconds first." };
  try {
    const job = new Cron(schedule.trim(), { paused: true });
    const times = job.nextRuns(n, new Date(afterMs)).map((d) => d.getTime());
    job.stop();
    return times.length ? { ok: true, times } : { ok: false, error: "This expression never fires." };
  } catch (error) {
    return { ok: false, error: `Not a cron expression: ${(error as Error).message}.` };
  }
}

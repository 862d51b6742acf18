/**
 * @module core/tools/output-limit
 * Bounded tool output (SPEC.md: "output truncated to `maxOutputBytes`"). Output over the cap
 * keeps its head and ends with a notice saying how many bytes were dropped; the result,
 * notice included, is never longer than the cap (docs/tools.md "Output limits"). The collector
 * keeps at most the cap in memory whatever a process prints.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Collects byte chunks up to `maxBytes`, counting (not keeping) the rest. */
export class OutputCollector {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  /** Bytes seen so far, kept or not. */
  total = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.byteLength;
    const room = this.maxBytes - this.kept;
    if (room <= 0) return;
    const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.byteLength;
  }

  /**
   * The collected text, with a truncation notice when bytes were dropped. `partial` says
   * reading stopped early: the notice then gives the whole size when it is known (`total`),
   * else says the rest was not read.
   */
  text(partial?: { total?: number }): string {
    const bytes = new Uint8Array(this.kept);
    let at = 0;
    for (const c of this.chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    return limitBytes(bytes, partial?.total ?? this.total, this.maxBytes, partial !== undefined && partial.total === undefined);
  }
}

/** Truncates a string to `maxBytes` UTF-8 bytes (notice included). */
export function truncateOutput(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  return bytes.byteLength <= maxBytes ? text : limitBytes(bytes.subarray(0, maxBytes), bytes.byteLength, maxBytes);
}

/** UTF-8 byte length of a string. */
export function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

function limitBytes(head: Uint8Array, total: number, maxBytes: number, totalUnknown = false): string {
  if (total <= maxBytes) return decoder.decode(head);
  const notice = (dropped: number) => (totalUnknown ? `\n[output truncated after ${total - dropped} bytes; the rest was not read]` : `\n[output truncated: ${dropped} of ${total} bytes omitted]`);
  // The notice's own length depends on how much is dropped; reserve for the longest form.
  const reserve = Math.max(encoder.encode(notice(total)).byteLength, encoder.encode(notice(0)).byteLength);
  const keep = Math.max(0, maxBytes - reserve);
  const cut = utf8Boundary(head, Math.min(keep, head.byteLength));
  const text = decoder.decode(head.subarray(0, cut)) + notice(total - cut);
  return reserve > maxBytes ? text.slice(0, maxBytes) : text;
}

/** The largest index <= `at` that does not split a UTF-8 sequence. */
function utf8Boundary(bytes: Uint8Array, at: number): number {
  let i = at;
  // Continuation bytes are 0b10xxxxxx; step back to the start of the sequence at `at`.
  while (i > 0 && i < bytes.byteLength && (bytes[i]! & 0xc0) === 0x80) i--;
  return i;
}

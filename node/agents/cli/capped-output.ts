/**
 * @module node/agents/cli/capped-output
 * Keeps a CLI's captured output under a byte cap (CLI-AGENTS.md section 2, "Output cap"):
 * stdout keeps its tail (result events come last), stderr its head (the first error is the
 * cause). Cuts fall on UTF-8 character boundaries, so the kept text never holds half a character.
 */

/** What a capped stream kept. */
export interface CappedText {
  text: string;
  truncated: boolean;
  /** Bytes the stream produced in all. */
  totalBytes: number;
}

/**
 * A byte buffer that keeps the head or the tail of what is pushed into it.
 * @example
 * const out = new CappedOutput(200_000, "tail"); out.push(chunk); out.result().text;
 */
export class CappedOutput {
  private chunks: Buffer[] = [];
  private size = 0;
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly keep: "head" | "tail",
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.keep === "head") {
      if (this.size >= this.maxBytes) return;
      const part = chunk.subarray(0, this.maxBytes - this.size);
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Compact now and then so memory stays near the cap on long outputs.
    if (this.size > this.maxBytes * 2) this.compact();
  }

  result(): CappedText {
    let buf: Buffer = Buffer.concat(this.chunks);
    const truncated = this.total > buf.length || buf.length > this.maxBytes;
    if (this.keep === "tail" && buf.length > this.maxBytes) buf = buf.subarray(buf.length - this.maxBytes);
    buf = this.keep === "tail" ? dropLeadingContinuation(buf) : dropTrailingPartial(buf);
    return { text: buf.toString("utf8"), truncated, totalBytes: this.total };
  }

  private compact(): void {
    const buf = Buffer.concat(this.chunks);
    const kept = buf.subarray(buf.length - this.maxBytes);
    this.chunks = [kept];
    this.size = kept.length;
  }
}

/** Drops continuation bytes (10xxxxxx) at the start of a tail cut. */
function dropLeadingContinuation(buf: Buffer): Buffer {
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i]! & 0xc0) === 0x80) i++;
  return buf.subarray(i);
}

/** Drops an incomplete multi-byte sequence at the end of a head cut. */
function dropTrailingPartial(buf: Buffer): Buffer {
  for (let back = 1; back <= Math.min(4, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}

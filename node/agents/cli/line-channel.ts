/**
 * @module node/agents/cli/line-channel
 * An async iterable of stdout lines, for RPC drivers that converse with a CLI over
 * stdin/stdout (variants 5 and 6): lines pushed before anyone reads are buffered; `close`
 * ends the iteration when the process is gone.
 */

/**
 * A push-to-pull queue of lines.
 * @example
 * const ch = new LineChannel(); ch.push("{}"); ch.close(); for await (const l of ch) console.log(l);
 */
export class LineChannel implements AsyncIterable<string> {
  private readonly buffered: string[] = [];
  private waiting: ((r: IteratorResult<string>) => void) | undefined;
  private closed = false;

  push(line: string): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: line, done: false });
    } else this.buffered.push(line);
  }

  close(): void {
    this.closed = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        if (this.buffered.length) return Promise.resolve({ value: this.buffered.shift()!, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

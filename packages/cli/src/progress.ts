// How a long command shows how far it has got: a bar redrawn in place on a terminal; elsewhere
// (a log, a pipe) a plain line each time another `every` items are done, so that the log stays short.

const WIDTH = 30;

export interface Progress {
  /** `done` of `total` items, with a note shown after the counts (failures so far). */
  update(done: number, total: number, note: string): void;
  /** Ends the bar's line, so that what follows starts on a line of its own. */
  end(): void;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

export function progressOn(stream: NodeJS.WriteStream, every: number): Progress {
  const started = performance.now();
  let printed = 0;
  let drawn = false;
  const rate = (done: number) => {
    const seconds = (performance.now() - started) / 1000;
    return seconds > 0 ? `${count(Math.round(done / seconds))}/s` : "";
  };
  return {
    update(done, total, note) {
      if (stream.isTTY) {
        const share = total > 0 ? Math.min(1, done / total) : 1;
        const filled = Math.round(share * WIDTH);
        stream.write(
          `\r[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(share * 100)}% ${count(done)}/${count(total)} ${note} ${rate(done)}\x1b[K`,
        );
        drawn = true;
      } else if (
        Math.floor(done / every) > Math.floor(printed / every) ||
        (done === total && done !== printed)
      ) {
        stream.write(`${count(done)}/${count(total)} ${note}\n`);
        printed = done;
      }
    },
    end() {
      if (drawn) stream.write("\n");
      drawn = false;
    },
  };
}

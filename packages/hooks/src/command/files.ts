// pass-file-to-command's temp files: Go's ioutil.TempFile naming and mode, Go's strict base64;
// and the waiting that starting a command may need when file descriptors run out.

import { randomInt } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { errnoText } from "../go/errors.ts";

/** errno codes of an attempt that may succeed later: file descriptors (EMFILE, ENFILE) or processes (EAGAIN) used up. */
const EXHAUSTED = new Set(["EMFILE", "ENFILE", "EAGAIN"]);

/** Attempts (for commands already accepted) now waiting for file descriptors or processes. */
let waiting = 0;

/**
 * True while commands already accepted wait for file descriptors or processes: the hook runner
 * then answers new hook requests 503 rather than accept commands it cannot start.
 */
export function waitingForResources(): boolean {
  return waiting > 0;
}

/**
 * Runs `attempt` until it succeeds or fails for another reason than used-up resources (`errnoOf`
 * names the failure), pausing before each new try: 10 ms, doubled each time up to half a second.
 */
export async function retryWhileExhausted<T>(
  attempt: () => Promise<T>,
  errnoOf: (outcome: T) => string | undefined,
  onWait?: (errno: string) => void,
): Promise<T> {
  let delay = 10;
  let counted = false;
  try {
    for (;;) {
      const outcome = await attempt();
      const errno = errnoOf(outcome);
      if (errno === undefined || !EXHAUSTED.has(errno)) return outcome;
      if (!counted) waiting++;
      counted = true;
      onWait?.(errno);
      await sleep(delay);
      delay = Math.min(delay * 2, 500);
    }
  } finally {
    if (counted) waiting--;
  }
}

/**
 * ioutil.TempFile(dir, prefix): prefix + random digits, created exclusively with mode 0600. While
 * file descriptors are used up it waits rather than fail: the command it is for was accepted.
 */
export async function createTempFile(dir: string, prefix: string, data: Buffer): Promise<string> {
  // The prefix comes from the hooks file's names; like Go, never let it leave `dir`.
  if (prefix.includes("/")) throw new Error(`createtemp ${prefix}: pattern contains path separator`);
  for (;;) {
    const file = path.join(dir, `${prefix}${randomInt(0, 2 ** 32)}`);
    const opened = await retryWhileExhausted(
      () =>
        open(file, "wx", 0o600).then(
          (handle) => ({ handle, error: undefined }),
          (error: NodeJS.ErrnoException) => ({ handle: undefined, error }),
        ),
      (outcome) => outcome.error?.code,
    );
    const { handle, error } = opened;
    if (handle === undefined) {
      if (error.code === "EEXIST") continue;
      throw new Error(`open ${file}: ${errnoText(error)}`);
    }
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    return file;
  }
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * base64.StdEncoding.DecodeString: strict (padding required, CR and LF ignored). On bad input Go
 * returns the bytes of the whole quanta before the bad one, and an error naming the offset.
 */
export function decodeBase64(text: string): { data: Buffer; error?: string } {
  const clean = text.replace(/[\r\n]/g, "");
  if (STRICT_BASE64.test(clean)) return { data: Buffer.from(clean, "base64") };
  let whole = 0;
  while (whole + 4 <= clean.length && /^[A-Za-z0-9+/]{4}$/.test(clean.slice(whole, whole + 4))) whole += 4;
  const bad = clean.slice(whole).search(/[^A-Za-z0-9+/]/);
  const offset = bad < 0 ? whole : whole + bad;
  return {
    data: Buffer.from(clean.slice(0, whole), "base64"),
    error: `illegal base64 data at input byte ${offset}`,
  };
}

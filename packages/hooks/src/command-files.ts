// pass-file-to-command's temp files: Go's ioutil.TempFile naming and mode, Go's strict base64.

import { randomInt } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { errnoText } from "./go-errors.ts";

/** ioutil.TempFile(dir, prefix): prefix + random digits, created exclusively with mode 0600. */
export async function createTempFile(dir: string, prefix: string, data: Buffer): Promise<string> {
  // The prefix comes from the hooks file's names; like Go, never let it leave `dir`.
  if (prefix.includes("/")) throw new Error(`createtemp ${prefix}: pattern contains path separator`);
  for (;;) {
    const file = path.join(dir, `${prefix}${randomInt(0, 2 ** 32)}`);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
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

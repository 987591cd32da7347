import { Transform } from "node:stream";
import { createGunzip } from "node:zlib";
import type { GitExit } from "./command-error.ts";
import { GitHttpError } from "./http-error.ts";

function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new GitHttpError(413, `the request body exceeds ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

/**
 * The stages between a request body and git's stdin: gzip is undone (git compresses large fetch
 * negotiations), and the decoded size is limited, which also defuses a small body that inflates
 * enormously. Other encodings are refused with 415, as git's http-backend does.
 */
export function requestBodyDecoders(
  contentEncoding: string | string[] | undefined,
  maxBytes: number,
): Transform[] {
  const encoding = String(contentEncoding ?? "")
    .trim()
    .toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return [createGunzip(), byteLimit(maxBytes)];
  if (encoding === "" || encoding === "identity") return [byteLimit(maxBytes)];
  throw new GitHttpError(415, `unsupported Content-Encoding: ${encoding}`);
}

/**
 * The client's fault among the ways reading a request body can fail, as the answer to give it:
 * a body over the limit, or gzip that does not inflate. Undefined for the rest (the client went
 * away, git stopped reading), where the outcome is git's to tell.
 */
export function requestBodyFault(error: Error): GitHttpError | undefined {
  if (error instanceof GitHttpError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === "string" && code.startsWith("Z_")) {
    return new GitHttpError(400, "the request body is not valid gzip");
  }
  return undefined;
}

// What git dies with when the request itself is malformed: pkt-line framing it cannot read
// (`bad line length character: zzzz`), a stream that ends inside a packet (`the remote end hung
// up unexpectedly`), or packets in the wrong place (`protocol error: expected old/new/ref`, v2's
// `unknown capability` …), or a want of an object the repository does not offer (`not our ref`,
// after git told the client so in an `ERR` packet). Failures of the server (a broken repository, no
// disk space) say otherwise.
const MALFORMED_REQUEST = [
  "protocol error",
  "not our ref",
  "the remote end hung up unexpectedly",
  "expected flush after",
  "unexpected line",
  "invalid command",
  "unknown capability",
  "no command requested",
];

/**
 * The client's fault when git refused what it was sent, as the answer to give: 400, as git's
 * http-backend answers a malformed request. git's own words stay in the log, never in the answer.
 */
export function malformedRequestFault(service: string, exit: GitExit): GitHttpError | undefined {
  if (exit.code !== 128) return undefined;
  const fatal = exit.stderr.split("\n").find((line) => line.startsWith("fatal: "));
  if (fatal === undefined || !MALFORMED_REQUEST.some((words) => fatal.includes(words))) return undefined;
  return new GitHttpError(400, `the request is not a valid ${service} request`);
}

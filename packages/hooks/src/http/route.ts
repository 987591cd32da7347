// webhook's routing (gorilla/mux over net/http): the request path is percent-decoded, a path that
// is not clean is redirected (301) to its cleaned form, `/` answers OK, `/<prefix>/<id>` reaches a
// hook (the id may contain `/`), anything else is the router's `404 page not found`.

import { pathUnescape } from "../go/url.ts";

export type Route =
  | { kind: "root" }
  | { kind: "hook"; id: string }
  | { kind: "not-found" }
  | { kind: "redirect"; location: string }
  /** net/http rejects the request line itself (bad percent-escape). */
  | { kind: "bad-request" };

const NOT_FOUND: Route = { kind: "not-found" };
const ROOT: Route = { kind: "root" };
const BAD_REQUEST: Route = { kind: "bad-request" };

/** Builds the matcher for `-urlprefix` (empty prefix: every path but `/` is a hook id). */
export function createRouter(urlPrefix: string): (requestTarget: string) => Route {
  const base = urlPrefix === "" ? "/" : `/${urlPrefix}/`;
  return (requestTarget) => {
    let origin = "";
    let target = requestTarget;
    if (target[0] !== "/") {
      // absolute-form (`GET http://host/path`): route on its path, redirect with its origin
      const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(target);
      if (authority !== null) {
        origin = authority[0];
        target = target.slice(origin.length) || "/";
      }
    }
    const queryAt = target.indexOf("?");
    const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
    const path = pathUnescape(rawPath);
    if (path === undefined) return BAD_REQUEST;
    if (!isClean(path)) {
      const query = queryAt < 0 ? "" : target.slice(queryAt);
      return { kind: "redirect", location: origin + escapePath(cleanPath(path)) + query };
    }
    if (path === "/") return ROOT;
    if (!path.startsWith(base)) return NOT_FOUND;
    const id = path.slice(base.length);
    // mux matches the id with `.*`, and `.` does not match a newline in Go's regexp.
    return id.includes("\n") ? NOT_FOUND : { kind: "hook", id };
  };
}

/** A path mux would not redirect: no empty, `.` or `..` segments (a trailing slash is fine). */
function isClean(path: string): boolean {
  return path[0] === "/" && !/\/\/|\/\.\.?(?:\/|$)/.test(path);
}

/** mux's cleanPath: path.Clean, keeping a trailing slash. */
export function cleanPath(path: string): string {
  const rooted = path[0] === "/" ? path : `/${path}`;
  const segments: string[] = [];
  for (const segment of rooted.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  const cleaned = `/${segments.join("/")}`;
  return rooted.endsWith("/") && cleaned !== "/" ? `${cleaned}/` : cleaned;
}

/** url.URL.EscapedPath for a path Go built itself: everything but unreserved and `$&+,/:;=@` escaped. */
function escapePath(path: string): string {
  let escaped = "";
  for (const byte of Buffer.from(path, "utf8")) {
    const char = String.fromCharCode(byte);
    escaped += /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return escaped;
}

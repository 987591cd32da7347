import { Invalid } from "@anvil/core";

// Gitea's rules for user and organization names: letters, digits, `-`, `_` and `.`, starting and
// ending with a letter or digit, no two punctuation marks in a row, at most 40 characters, and
// not a name the web routes use.

const USERNAME = /^[\da-zA-Z](?:[\da-zA-Z]|[-_.](?=[\da-zA-Z]))*$/;
const MAX_LENGTH = 40;

const RESERVED = new Set([
  ".",
  "..",
  ".well-known",
  "admin",
  "api",
  "assets",
  "attachments",
  "avatar",
  "avatars",
  "captcha",
  "commits",
  "debug",
  "devtest",
  "error",
  "explore",
  "favicon.ico",
  "ghost",
  "issues",
  "login",
  "manifest.json",
  "metrics",
  "milestones",
  "new",
  "notifications",
  "org",
  "pulls",
  "raw",
  "repo",
  "repo-avatars",
  "robots.txt",
  "search",
  "serviceworker.js",
  "ssh_info",
  "swagger.v1.json",
  "user",
  "v2",
  "gitea-actions",
]);

const RESERVED_SUFFIXES = [".keys", ".gpg", ".rss", ".atom", ".png"];

/** Refuses a name Gitea would refuse, with Gitea's 422 messages. */
export function checkAccountName(name: string, field = "Username"): void {
  if (name.length === 0 || name.length > MAX_LENGTH || !USERNAME.test(name)) {
    throw new Invalid(`[${field}]: ${name.length > MAX_LENGTH ? "MaxSize" : field}`);
  }
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || RESERVED_SUFFIXES.some((suffix) => lower.endsWith(suffix))) {
    throw new Invalid(`name is reserved [name: ${name}]`);
  }
}

// A deliberately loose check, as Gitea's binding: something@something.
const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;

export function checkEmail(email: string): void {
  if (email.length > 255 || !EMAIL.test(email)) throw new Invalid("[Email]: Email");
}

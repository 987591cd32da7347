// Go prints system errors as their strerror text (`open x: no such file or directory`); Node's
// messages read differently. These keep log and console messages in webhook's words.

const ERRNO_TEXT: Record<string, string> = {
  EACCES: "permission denied",
  EADDRINUSE: "address already in use",
  EADDRNOTAVAIL: "cannot assign requested address",
  EEXIST: "file exists",
  EINVAL: "invalid argument",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  EMFILE: "too many open files",
  ENAMETOOLONG: "file name too long",
  ENOENT: "no such file or directory",
  ENOEXEC: "exec format error",
  ENOTDIR: "not a directory",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  E2BIG: "argument list too long",
  ETXTBSY: "text file busy",
};

/** strerror-style text of a Node system error, e.g. ENOENT -> "no such file or directory". */
export function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && Object.hasOwn(ERRNO_TEXT, code)) return ERRNO_TEXT[code];
  return error instanceof Error ? error.message : String(error);
}

// Starting commands through the C library's posix_spawn. Node's child_process forks the whole
// server (copying its page tables: ~1.5 ms here, ~600 spawns/s, worse as the heap grows), while
// glibc's posix_spawn uses clone(CLONE_VM|CLONE_VFORK) as Go's os/exec does, so a busy hook
// starts its commands as fast as webhook. koffi calls libc without a native build step. Where
// the library cannot be loaded (musl, macOS) process.ts falls back to child-spawn.ts.

import { createRequire } from "node:module";
import { constants } from "node:os";
import type { LibraryHandle } from "koffi";
import { encodeGoString, hasRawBytes } from "../go/utf8.ts";

/** What to start; `file` is already resolved, as exec.LookPath leaves it. */
export interface SpawnRequest {
  file: string;
  /** argv[0] first, then the arguments. */
  argv: string[];
  /** The whole environment, `NAME=value` entries. */
  env: string[];
  cwd: string | undefined;
  /** The write end of a pipe that becomes the child's stdout and stderr; /dev/null when undefined. */
  outputFd: number | undefined;
  /** Put the child in a process group of its own, so it and its descendants can be signalled together. */
  ownProcessGroup: boolean;
}

export type SpawnOutcome = { pid: number } | { errno: string };

/** How a reaped child ended: an exit status, or the signal that killed it. */
export interface ChildStatus {
  code: number | null;
  signal: string | null;
}

// The values are the same in glibc and musl.
const POSIX_SPAWN_SETPGROUP = 0x02;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const O_RDONLY = 0;
const O_WRONLY = 1;
const O_CLOEXEC = 0o2000000;
const WNOHANG = 1;
/** Larger than posix_spawn_file_actions_t, posix_spawnattr_t and sigset_t of glibc and musl. */
const OPAQUE_BYTES = 512;

interface Libc {
  pipe2(fds: Int32Array, flags: number): number;
  close(fd: number): number;
  fileActionsInit(actions: Buffer): number;
  fileActionsDestroy(actions: Buffer): number;
  addDup2(actions: Buffer, fd: number, target: number): number;
  addOpen(actions: Buffer, fd: number, path: string, flags: number, mode: number): number;
  addChdir(actions: Buffer, path: string): number;
  /** posix_spawn; its `async` form runs it on a thread of libuv's pool. */
  spawn: ReturnType<LibraryHandle["func"]>;
  waitpid(pid: number, status: Int32Array, options: number): number;
  /** Attributes shared by every spawn: default signal handlers, nothing blocked; one per grouping. */
  sameGroup: Buffer;
  ownGroup: Buffer;
}

type Koffi = typeof import("koffi");

/** The C library posix_spawn is loaded from; ANVIL_HOOKS_LIBC names another one. */
const LIBC = process.env.ANVIL_HOOKS_LIBC || "libc.so.6";

let koffi: Koffi;
let libc: Libc | undefined;
/** Why the C library could not be loaded, once it was tried. */
let unavailable: string | undefined;

function load(): Libc {
  if (libc !== undefined) return libc;
  if (unavailable !== undefined) throw new Error(unavailable);
  try {
    libc = bind();
  } catch (error) {
    unavailable = error instanceof Error ? error.message : String(error);
    throw error;
  }
  return libc;
}

function bind(): Libc {
  if (process.platform !== "linux") throw new Error(`glibc's posix_spawn is not used on ${process.platform}`);
  // Required here rather than imported: a platform without koffi's native part still starts.
  koffi = createRequire(import.meta.url)("koffi") as Koffi;
  const lib = koffi.load(LIBC);
  const fn = (declaration: string) => lib.func(declaration);
  const sigemptyset = fn("int sigemptyset(void *set)");
  const sigfillset = fn("int sigfillset(void *set)");
  const attrInit = fn("int posix_spawnattr_init(void *attr)");
  const attrSetFlags = fn("int posix_spawnattr_setflags(void *attr, short flags)");
  const attrSetPgroup = fn("int posix_spawnattr_setpgroup(void *attr, int pgroup)");
  const attrSetSigmask = fn("int posix_spawnattr_setsigmask(void *attr, void *set)");
  const attrSetSigdefault = fn("int posix_spawnattr_setsigdefault(void *attr, void *set)");

  // The child starts with every signal at its default action and none blocked: Node ignores
  // SIGPIPE, and an ignored signal would otherwise stay ignored across exec.
  const noSignals = Buffer.alloc(OPAQUE_BYTES);
  const allSignals = Buffer.alloc(OPAQUE_BYTES);
  sigemptyset(noSignals);
  sigfillset(allSignals);
  // sigfillset leaves out the two signals glibc keeps for itself (32 and 33), and its spawn
  // would start the child with them ignored; Go's children have them at the default too.
  allSignals[3] |= 0x80;
  allSignals[4] |= 0x01;
  const attributes = (ownGroup: boolean): Buffer => {
    const attr = Buffer.alloc(OPAQUE_BYTES);
    attrInit(attr);
    attrSetSigmask(attr, noSignals);
    attrSetSigdefault(attr, allSignals);
    let flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (ownGroup) {
      flags |= POSIX_SPAWN_SETPGROUP;
      attrSetPgroup(attr, 0);
    }
    attrSetFlags(attr, flags);
    return attr;
  };

  return {
    pipe2: fn("int pipe2(int *fds, int flags)"),
    close: fn("int close(int fd)"),
    fileActionsInit: fn("int posix_spawn_file_actions_init(void *actions)"),
    fileActionsDestroy: fn("int posix_spawn_file_actions_destroy(void *actions)"),
    addDup2: fn("int posix_spawn_file_actions_adddup2(void *actions, int fd, int newfd)"),
    addOpen: fn(
      "int posix_spawn_file_actions_addopen(void *actions, int fd, const char *path, int oflag, uint32_t mode)",
    ),
    addChdir: fn("int posix_spawn_file_actions_addchdir_np(void *actions, const char *path)"),
    spawn: fn(
      "int posix_spawn(int *pid, const char *path, void *actions, void *attr, const char **argv, const char **envp)",
    ),
    waitpid: fn("int waitpid(int pid, int *status, int options)"),
    sameGroup: attributes(false),
    ownGroup: attributes(true),
  };
}

const errnoNames = new Map<number, string>(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const signalNames = new Map<number, string>(Object.entries(constants.signals).map(([name, n]) => [n, name]));

function errnoName(n: number): string {
  return errnoNames.get(n) ?? "EIO";
}

/**
 * Loads the C library's functions now rather than on the first spawn; undefined when posix_spawn
 * can be used, else why not.
 */
export function posixSpawnUnavailable(): string | undefined {
  try {
    load();
    return undefined;
  } catch {
    return unavailable;
  }
}

/** A pipe, both ends close-on-exec: [read end, write end]. */
export function openPipe(): [number, number] {
  const c = load();
  const fds = new Int32Array(2);
  if (c.pipe2(fds, O_CLOEXEC) !== 0) {
    const error: NodeJS.ErrnoException = new Error("pipe2 failed");
    error.code = errnoName(koffi.errno());
    throw error;
  }
  return [fds[0], fds[1]];
}

export function closeFd(fd: number): void {
  load().close(fd);
}

/**
 * Starts the child: stdin from /dev/null (as os/exec does), stdout and stderr on `outputFd`.
 * Resolves once it has exec'd, or with the errno that stopped it (exec's, or chdir's). The call
 * runs on a pool thread: vfork suspends only the calling thread, so the server keeps answering.
 */
export function posixSpawn(request: SpawnRequest): Promise<SpawnOutcome> {
  const strings = [request.file, request.cwd ?? "", ...request.argv, ...request.env];
  // execve takes C strings: a NUL byte cannot be passed, and Go's exec refuses it the same way.
  if (strings.some((s) => s.includes("\0"))) return Promise.resolve({ errno: "EINVAL" });
  const c = load();
  const actions = Buffer.alloc(OPAQUE_BYTES);
  c.fileActionsInit(actions);
  c.addOpen(actions, 0, "/dev/null", O_RDONLY, 0);
  if (request.outputFd === undefined) {
    c.addOpen(actions, 1, "/dev/null", O_WRONLY, 0);
    c.addDup2(actions, 1, 2);
  } else {
    c.addDup2(actions, request.outputFd, 1);
    c.addDup2(actions, request.outputFd, 2);
  }
  if (request.cwd !== undefined) c.addChdir(actions, request.cwd);
  const pid = new Int32Array(1);
  const attributes = request.ownProcessGroup ? c.ownGroup : c.sameGroup;
  return new Promise((resolve) => {
    c.spawn.async(
      pid,
      request.file,
      actions,
      attributes,
      [...request.argv.map(cString), null],
      [...request.env.map(cString), null],
      (error: unknown, failed: number) => {
        c.fileActionsDestroy(actions);
        if (error !== null && error !== undefined) resolve({ errno: "EIO" });
        else resolve(failed === 0 ? { pid: pid[0] } : { errno: errnoName(failed) });
      },
    );
  });
}

/** koffi writes a string as UTF-8; a value holding bytes that are not goes as those bytes. */
function cString(text: string): string | Buffer {
  return hasRawBytes(text) ? Buffer.concat([encodeGoString(text), Buffer.of(0)]) : text;
}

/** waitpid(pid, WNOHANG): the status once the child has ended (and is reaped), else undefined. */
export function reapChild(pid: number): ChildStatus | undefined {
  const status = new Int32Array(1);
  const reaped = load().waitpid(pid, status, WNOHANG);
  if (reaped === 0) return undefined;
  // -1: not our child any more (ECHILD); nothing more can be learnt about it.
  if (reaped !== pid) return { code: null, signal: null };
  const termSignal = status[0] & 0x7f;
  if (termSignal === 0) return { code: (status[0] >> 8) & 0xff, signal: null };
  return { code: null, signal: signalNames.get(termSignal) ?? `signal ${termSignal}` };
}

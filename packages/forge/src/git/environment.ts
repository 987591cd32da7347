// Git runs with an environment built here rather than inherited: a GIT_DIR, GIT_INDEX_FILE or
// GIT_CONFIG_PARAMETERS in the server's own environment would point commands at another
// repository or change their behaviour, and the host's system and global configuration (url
// rewrites, hook paths, credential helpers) must not change what the forge does.

/** The whole environment of a git process: PATH, isolation settings, then `extra`. */
export function gitEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    // Nothing lives there: git finds no per-user configuration, attributes or ignore files.
    HOME: "/nonexistent",
    // Messages in one language, so logs and errors read the same on every host.
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    ...extra,
  };
}

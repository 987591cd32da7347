// The wire protocol version a client asks for (`Git-Protocol: version=2` over HTTP, the
// GIT_PROTOCOL variable over SSH) reaches git as GIT_PROTOCOL. Only `key=value[:key=value…]` made
// of letters and digits is passed on, as Gitea does; anything else is ignored, which leaves git
// speaking protocol v0, which every client understands.

const SAFE_GIT_PROTOCOL = /^[0-9a-zA-Z]+=[0-9a-zA-Z]+(:[0-9a-zA-Z]+=[0-9a-zA-Z]+)*$/;

/** `{GIT_PROTOCOL}` for git's environment when the client's value is well-formed, else nothing. */
export function gitProtocolEnvironment(value: string | string[] | undefined): Record<string, string> {
  return typeof value === "string" && value.length <= 256 && SAFE_GIT_PROTOCOL.test(value)
    ? { GIT_PROTOCOL: value }
    : {};
}

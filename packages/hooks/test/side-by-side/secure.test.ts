// -secure: HTTPS with webhook's default cert.pem/key.pem (a throw-away self-signed pair in the
// servers' working folder), and the plain-HTTP request Go's TLS server answers itself.
import { sideBySide } from "./harness/harness.ts";
import { get } from "./harness/requests.ts";

const overTls = (path: string) => ({ ...get(path), tls: true });

sideBySide("-secure", { hooks: ["routing-more.yaml"], flags: ["-secure"], selfSignedCert: true }, [
  { name: "GET / over TLS", req: overTls("/"), want: { status: 200, body: "OK" } },
  {
    name: "a hook over TLS",
    req: overTls("/hooks/from-yaml"),
    want: { status: 200, body: "from the yaml file", runs: 1, record: { args: ["yaml argument"] } },
  },
  {
    name: "unknown hook over TLS",
    req: overTls("/hooks/nope"),
    want: { status: 404, body: "Hook not found." },
  },
  {
    name: "plain HTTP to the HTTPS port",
    req: get("/hooks/from-yaml"),
    want: { status: 400, body: "Client sent an HTTP request to an HTTPS server.\n" },
  },
]);

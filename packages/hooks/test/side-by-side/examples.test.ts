// The documented examples (examples/hooks), loaded unchanged. The servers run in a folder where
// the examples' ./on-ping.sh and ./deploy.sh are the recorder, so what each script would receive
// is compared.
import path from "node:path";
import { mismatch } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get, postForm, postJson } from "./harness/requests.ts";

const examples = path.resolve(import.meta.dirname, "../../../../examples/hooks");
const ping = (event: string) =>
  postJson("/hooks/forge-ping", '{"repository":{"full_name":"acme/site"}}', {
    "X-Forge-Event": event,
    "X-Forge-Delivery": "7f3c",
  });
const build = (fields: object) =>
  postForm("/hooks/ci-deploy", `payload=${encodeURIComponent(JSON.stringify(fields))}`);

sideBySide(
  "documented examples",
  {
    hooks: [path.join(examples, "forge-ping.json"), path.join(examples, "ci-deploy.yaml")],
    workLinks: { "on-ping.sh": "@RECORDER@", "deploy.sh": "@RECORDER@" },
  },
  [
    {
      name: "forge ping answers pong",
      req: ping("ping"),
      want: { status: 200, body: "pong", runs: 1, record: { args: ["7f3c", "acme/site"] } },
    },
    { name: "forge push event is not a ping", req: ping("push"), want: mismatch },
    {
      name: "forge request without the event header",
      req: postJson("/hooks/forge-ping", "{}"),
      want: mismatch,
    },
    {
      name: "CI passed build deploys branch and number",
      req: build({ id: 1001, number: 42, branch: "main", state: "passed" }),
      want: { status: 200, body: "deploy started", runs: 1, record: { args: ["main", "42"] } },
    },
    {
      name: "CI failed build does not deploy",
      req: build({ id: 1002, number: 43, branch: "main", state: "failed" }),
      want: mismatch,
    },
    {
      name: "CI payload that is not JSON",
      req: postForm("/hooks/ci-deploy", "payload=not-json"),
      want: mismatch,
    },
    { name: "CI hook refuses GET", req: get("/hooks/ci-deploy"), want: { status: 405 } },
  ],
);

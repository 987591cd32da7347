// webhook 2.8.0 quirks kept on purpose (spec §8), and the dotted parse-parameters-as-json panic,
// which the spec names as a bug anvil fixes (each side is held to its own answer there).
import { fired, mismatch } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get, postJson } from "./harness/requests.ts";

sideBySide("kept quirks and the fixed panic", { hooks: ["quirks.yaml"], recordEnv: [] }, [
  {
    name: "YAML 1.1 booleans: n and off become false, yes becomes true",
    req: get("/hooks/yaml-booleans?v=true"),
    want: { ...fired, record: { args: ["false", "false", "n"] } },
  },
  {
    name: "YAML 1.1 booleans: the literal yes does not match",
    req: get("/hooks/yaml-booleans?v=yes"),
    want: mismatch,
  },
  {
    name: "malformed JSON body: payload rules mismatch, never 400",
    req: postJson("/hooks/payload-rule", '{"ref": "main"'),
    want: mismatch,
  },
  {
    name: "well-formed JSON body for comparison",
    req: postJson("/hooks/payload-rule", '{"ref": "main"}'),
    want: fired,
  },
  {
    name: "JSON null is the text <nil> for rules, arguments and environment",
    req: postJson("/hooks/null-values", '{"a": null, "list": [null]}'),
    want: { ...fired, record: { args: ["<nil>", "<nil>"], env: { HOOK_a: "<nil>" } } },
  },
  {
    name: "parse-parameters-as-json with a dotted name",
    req: postJson("/hooks/dotted-json-parameter", '{"outer": {"inner": "{\\"k\\": \\"v\\"}"}}'),
    want: { status: 500, body: "Internal Server Error\n" },
    anvil: { status: 500, body: /parse-parameters-as-json/ },
  },
]);

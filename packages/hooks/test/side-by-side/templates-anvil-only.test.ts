// ANVIL ONLY: the `cat` and `credential` template functions exist in upstream master, not in
// webhook 2.8.0, so anvil is held to the spec's description (§9) without a side-by-side run.
import path from "node:path";
import { mismatch } from "./harness/answers.ts";
import { anvilOnly } from "./harness/harness.ts";
import { fixturesDir } from "./harness/pair.ts";
import { get } from "./harness/requests.ts";

anvilOnly(
  "anvil only: -template cat and credential",
  {
    hooks: ["templates-anvil-only.yaml"],
    flags: ["-template"],
    env: { CREDENTIALS_DIRECTORY: path.join(fixturesDir, "credentials"), FALLBACK_TOKEN: "from-env" },
  },
  [
    {
      name: "cat trims the trailing newline, missing file is empty, credential reads the folder then the env",
      req: get("/hooks/cat-credential?token=cred-from-file"),
      want: {
        status: 200,
        body: "file secret",
        runs: 1,
        record: { args: ["[]", "cred-from-file", "from-env", "file secret!"] },
      },
    },
    { name: "credential as a rule value", req: get("/hooks/cat-credential?token=other"), want: mismatch },
  ],
);

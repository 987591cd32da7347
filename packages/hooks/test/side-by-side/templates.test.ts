// -template: hooks files are Go text/template first (getenv, js, printf, pipelines, comments).
import { mismatch } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get, hmacHex, postJson } from "./harness/requests.ts";

const body = '{"ok":true}';

sideBySide(
  "-template with getenv, js, printf and pipelines",
  {
    hooks: ["templates.json.tmpl", "templates.yaml.tmpl"],
    flags: ["-template"],
    env: {
      TEMPLATE_HOOK_ID: "from-env",
      GREETING: 'hello "templates"',
      DEPLOY_USER: "deployer",
      TRICKY: 'a"b\\c<d>&e=f',
      SECRET_TOKEN: 'to"ken',
      HMAC_SECRET: "env-secret",
    },
  },
  [
    {
      name: "id, message and arguments come from the template",
      req: get("/hooks/from-env?token=to%22ken"),
      want: {
        status: 200,
        body: 'hello "templates"',
        runs: 1,
        record: { args: ["user=deployer", "42-x-true", "head+tail", 'a"b\\c<d>&e=f', "[]"] },
      },
    },
    { name: "secret from getenv: wrong token", req: get("/hooks/from-env?token=token"), want: mismatch },
    {
      name: "YAML template: HMAC secret from the environment",
      req: postJson("/hooks/yaml-template", body, {
        "X-Signature": `sha256=${hmacHex("sha256", "env-secret", body)}`,
      }),
      want: { status: 200, body: 'hello "templates" from yaml', runs: 1 },
    },
    {
      name: "YAML template: the placeholder text is not the secret",
      req: postJson("/hooks/yaml-template", body, {
        "X-Signature": `sha256=${hmacHex("sha256", '{{ getenv "HMAC_SECRET" }}', body)}`,
      }),
      want: { status: 500 },
    },
  ],
);

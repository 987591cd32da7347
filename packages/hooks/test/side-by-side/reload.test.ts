// Reloading hooks files: -hotreload on in-place edits, SIGHUP and SIGUSR1, and the atomic rename
// that webhook 2.8.0 misses (the spec says anvil must do better: a deliberate difference).
import { setTimeout as sleep } from "node:timers/promises";
import { hookNotFound } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import type { PairControl } from "./harness/pair.ts";
import { get } from "./harness/requests.ts";

// /bin/true rather than the recorder: a retried request must not leave a late record behind.
const hooks = (...ids: string[]) =>
  JSON.stringify(ids.map((id) => ({ id, "execute-command": "/bin/true", "response-message": `hook ${id}` })));
const loaded = (id: string) => ({ status: 200, body: `hook ${id}` });
/** Gives a reload that must NOT change anything the time to happen anyway. */
const settled = (change: (control: PairControl) => Promise<void>) => async (control: PairControl) => {
  await change(control);
  await sleep(700);
};

sideBySide("-hotreload", { hooks: [{ name: "reload.json", text: hooks("first") }], flags: ["-hotreload"] }, [
  { name: "initial hooks", req: get("/hooks/first"), want: loaded("first") },
  {
    name: "an in-place edit adds a hook",
    setup: (control) => control.writeHooks("reload.json", hooks("first", "second")),
    req: get("/hooks/second"),
    retryMs: 5000,
    want: loaded("second"),
  },
  {
    name: "an in-place edit removes a hook",
    setup: (control) => control.writeHooks("reload.json", hooks("second")),
    req: get("/hooks/first"),
    retryMs: 5000,
    want: hookNotFound,
  },
  {
    name: "invalid new content keeps the previous hooks",
    setup: settled((control) => control.writeHooks("reload.json", '[{"id": "broken", ')),
    req: get("/hooks/second"),
    want: loaded("second"),
  },
  {
    name: "an atomic rename is picked up (webhook 2.8.0 loses it)",
    setup: (control) => control.replaceHooks("reload.json", hooks("renamed")),
    req: get("/hooks/renamed"),
    retryMs: 3000,
    want: hookNotFound,
    anvil: { status: 200, body: "hook renamed" },
  },
]);

sideBySide("reload on signals", { hooks: [{ name: "signals.json", text: hooks("first") }] }, [
  {
    name: "without -hotreload an edit is not loaded",
    setup: settled((control) => control.writeHooks("signals.json", hooks("first", "by-hup"))),
    req: get("/hooks/by-hup"),
    want: hookNotFound,
  },
  {
    name: "SIGHUP reloads",
    setup: async (control) => control.signal("SIGHUP"),
    req: get("/hooks/by-hup"),
    retryMs: 5000,
    want: loaded("by-hup"),
  },
  {
    name: "SIGUSR1 reloads",
    setup: async (control) => {
      await control.writeHooks("signals.json", hooks("by-usr1"));
      control.signal("SIGUSR1");
    },
    req: get("/hooks/by-usr1"),
    retryMs: 5000,
    want: loaded("by-usr1"),
  },
  { name: "hooks dropped by the reload are gone", req: get("/hooks/first"), want: hookNotFound },
]);

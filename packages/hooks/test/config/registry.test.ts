// Start-up and reload log lines follow Debian's webhook 2.8.0 (-verbose); watch() uses real fs events.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { DuplicateHookError, HookRegistry } from "../../src/config/registry.ts";

interface Setup {
  dir: string;
  lines: string[];
  registry: (files: string[], template?: boolean) => HookRegistry;
}

async function setup(t: TestContext): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), "anvil-registry-"));
  const lines: string[] = [];
  const registries: HookRegistry[] = [];
  t.after(async () => {
    for (const registry of registries) registry.close();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    dir,
    lines,
    registry: (files, template = false) => {
      const registry = new HookRegistry({ files, template, log: (line) => lines.push(line) });
      registries.push(registry);
      return registry;
    },
  };
}

function hooksYaml(...ids: string[]): string {
  return ids
    .map((id) => `- id: ${id}\n  execute-command: /bin/echo\n  response-message: ${id} v1\n`)
    .join("");
}

/** Polls until the condition holds; fails after a bounded wait. */
async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

test("load logs like webhook, drops a file that fails and serves the rest", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const first = join(dir, "first.yaml");
  const broken = join(dir, "broken.yaml");
  const missing = join(dir, "missing.yaml");
  await writeFile(first, hooksYaml("deploy", "build"));
  await writeFile(broken, "- id: [\n");
  const hooks = registry([first, broken, missing]);
  await hooks.load();
  assert.deepEqual(lines, [
    `attempting to load hooks from ${first}`,
    "found 2 hook(s) in file",
    "\tloaded: deploy",
    "\tloaded: build",
    `attempting to load hooks from ${broken}`,
    `couldn't load hooks from file! ${broken}: line 2: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    `attempting to load hooks from ${missing}`,
    `couldn't load hooks from file! open ${missing}: no such file or directory`,
  ]);
  assert.equal(hooks.size, 2);
  assert.equal(hooks.find("deploy")?.responseMessage, "deploy v1");
  assert.equal(hooks.find("Deploy"), undefined);
  assert.equal(hooks.find("nope"), undefined);
});

test("inside one file the first definition wins; validation problems are logged after the hooks", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const file = join(dir, "hooks.yaml");
  await writeFile(file, "- {id: a, execute-command: /bin/first}\n- {id: a, execute-command: /bin/second}\n");
  const hooks = registry([file]);
  await hooks.load();
  assert.equal(hooks.find("a")?.executeCommand, "/bin/first");
  assert.deepEqual(lines.slice(1), [
    "found 2 hook(s) in file",
    "\tloaded: a",
    "\tloaded: a",
    `hooks file ${file}: hook "a": id: duplicate id (hook #2; hook #1 has it too): the first one is used`,
  ]);
});

test("an id defined in two files stops the start, as webhook exits", async (t) => {
  const { dir, registry } = await setup(t);
  const one = join(dir, "one.yaml");
  const two = join(dir, "two.yaml");
  await writeFile(one, hooksYaml("a"));
  await writeFile(two, hooksYaml("b", "a"));
  await assert.rejects(registry([one, two]).load(), (error) => {
    assert.ok(error instanceof DuplicateHookError);
    assert.equal(
      error.message,
      "error: hook with the id a has already been loaded!\nplease check your hooks file for duplicate hooks ids!",
    );
    return true;
  });
});

test("-template files are rendered before parsing", async (t) => {
  const { dir, registry } = await setup(t);
  const file = join(dir, "hooks.json");
  await writeFile(file, '[{"id": "{{ getenv "ANVIL_T_ID" }}", "execute-command": "/bin/true"}]');
  process.env.ANVIL_T_ID = "from-env";
  t.after(() => {
    delete process.env.ANVIL_T_ID;
  });
  const hooks = registry([file], true);
  await hooks.load();
  assert.equal(hooks.find("from-env")?.executeCommand, "/bin/true");
});

test("reload applies webhook's rules: invalid files and duplicate ids keep the previous hooks", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const one = join(dir, "one.yaml");
  const two = join(dir, "two.yaml");
  const dropped = join(dir, "dropped.yaml");
  await writeFile(one, hooksYaml("a", "b"));
  await writeFile(two, hooksYaml("z"));
  const hooks = registry([one, two, dropped]);
  await hooks.load();

  await writeFile(one, hooksYaml("b", "c"));
  await writeFile(dropped, hooksYaml("late"));
  lines.length = 0;
  await hooks.reload();
  assert.deepEqual(lines, [
    `attempting to reload hooks from ${one}`,
    "found 2 hook(s) in file",
    "\tloaded: b",
    "\tloaded: c",
    `applied hooks from ${one}: added c; removed a; kept 1`,
    `attempting to reload hooks from ${two}`,
    "found 1 hook(s) in file",
    "\tloaded: z",
    `applied hooks from ${two}: added none; removed none; kept 1`,
  ]);
  assert.equal(hooks.find("a"), undefined);
  assert.ok(hooks.find("c"));
  // A file that failed at start is not part of the set any more (webhook's reload skips it).
  assert.equal(hooks.find("late"), undefined);

  await writeFile(one, "- id: [\n");
  await hooks.reload();
  assert.ok(hooks.find("b") && hooks.find("c"));
  assert.ok(lines.includes(`keeping the 2 hook(s) previously loaded from ${one}`));

  for (const clash of [hooksYaml("c", "z"), hooksYaml("d", "d")]) {
    await writeFile(one, clash);
    lines.length = 0;
    await hooks.reload();
    assert.ok(lines.includes("reverting hooks back to the previous configuration"), clash);
    assert.ok(hooks.find("b") && hooks.find("c") && hooks.find("z"));
    assert.equal(hooks.find("d"), undefined);
  }
  assert.equal(hooks.size, 3);
});

test("watch picks up in-place writes and rename-on-save", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const file = join(dir, "hooks.yaml");
  await writeFile(file, hooksYaml("a"));
  const hooks = registry([file]);
  await hooks.load();
  hooks.watch();
  assert.ok(lines.includes(`setting up file watcher for ${file}`));

  await writeFile(file, hooksYaml("b"));
  await waitFor("in-place write", () => hooks.find("b") !== undefined);
  assert.equal(hooks.find("a"), undefined);
  assert.ok(lines.includes(`hooks file ${file} modified`));
  assert.ok(lines.includes(`applied hooks from ${file}: added b; removed a; kept 0`));

  // Editors save to a temporary file and rename it over the original: webhook loses this edit.
  const temporary = join(dir, ".hooks.yaml.swp");
  await writeFile(temporary, hooksYaml("c"));
  await rename(temporary, file);
  await waitFor("rename over the file", () => hooks.find("c") !== undefined);
  assert.equal(hooks.find("b"), undefined);

  // A second rename-on-save: the watch survives the replacement of the file.
  await writeFile(temporary, hooksYaml("d"));
  await rename(temporary, file);
  await waitFor("second rename", () => hooks.find("d") !== undefined);
});

test("watch keeps the last good hooks through truncation and invalid content", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const file = join(dir, "hooks.yaml");
  await writeFile(file, hooksYaml("a", "b"));
  const hooks = registry([file]);
  await hooks.load();
  hooks.watch();

  await writeFile(file, "");
  const emptyLine = `hooks file ${file} is empty; keeping the 2 hook(s) previously loaded from it (write [] to remove all its hooks)`;
  await waitFor("the empty file to be seen", () => lines.includes(emptyLine));
  assert.equal(hooks.size, 2);

  await writeFile(file, "- id: a\n  execute-command: [\n");
  await waitFor("the invalid file to be seen", () =>
    lines.includes(`keeping the 2 hook(s) previously loaded from ${file}`),
  );
  assert.ok(hooks.find("a") && hooks.find("b"));

  await writeFile(file, hooksYaml("a", "c"));
  await waitFor("the repaired file", () => hooks.find("c") !== undefined);
  assert.equal(hooks.find("b"), undefined);
  assert.ok(lines.includes(`applied hooks from ${file}: added c; removed b; kept 1`));
});

test("watch drops the hooks of a deleted file and loads it again when it comes back", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const file = join(dir, "hooks.yaml");
  const other = join(dir, "other.yaml");
  await writeFile(file, hooksYaml("a", "b"));
  await writeFile(other, hooksYaml("z"));
  const hooks = registry([file, other]);
  await hooks.load();
  hooks.watch();

  await rm(file);
  await waitFor("the removal", () => hooks.find("a") === undefined);
  assert.equal(hooks.find("b"), undefined);
  assert.ok(hooks.find("z"));
  const removal = lines.indexOf(`hooks file ${file} removed, removing hooks that were loaded from it`);
  assert.deepEqual(lines.slice(removal + 1, removal + 5), [
    `removing hooks from ${file}`,
    "\tremoving: a",
    "\tremoving: b",
    `removed 2 hook(s) that were loaded from file ${file}`,
  ]);

  await writeFile(file, hooksYaml("a"));
  await waitFor("the file to come back", () => hooks.find("a") !== undefined);
  assert.ok(lines.includes(`hooks file ${file} created`));
  assert.equal(hooks.size, 2);
});

test("watch follows a symlinked file when the link it goes through is swapped (Kubernetes ConfigMap)", async (t) => {
  const { dir, registry } = await setup(t);
  for (const version of ["..v1", "..v2"]) await mkdir(join(dir, version));
  await writeFile(join(dir, "..v1", "hooks.yaml"), hooksYaml("v1"));
  await writeFile(join(dir, "..v2", "hooks.yaml"), hooksYaml("v2"));
  await symlink("..v1", join(dir, "..data"));
  await symlink("..data/hooks.yaml", join(dir, "hooks.yaml"));
  const hooks = registry([join(dir, "hooks.yaml")]);
  await hooks.load();
  hooks.watch();
  assert.ok(hooks.find("v1"));

  await symlink("..v2", join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
  await waitFor("the swapped link", () => hooks.find("v2") !== undefined);
  assert.equal(hooks.find("v1"), undefined);
});

test("watch ignores other files of the directory and stops on close", async (t) => {
  const { dir, lines, registry } = await setup(t);
  const file = join(dir, "hooks.yaml");
  await writeFile(file, hooksYaml("a"));
  const hooks = registry([file]);
  await hooks.load();
  hooks.watch();
  const loaded = lines.length;

  await writeFile(join(dir, "notes.txt"), "unrelated\n");
  await writeFile(file, hooksYaml("b"));
  await waitFor("the change", () => hooks.find("b") !== undefined);
  assert.equal(lines.filter((line) => line.startsWith("attempting to reload")).length, 1);
  assert.ok(lines.length > loaded);

  hooks.close();
  const closedAt = lines.length;
  await writeFile(file, hooksYaml("c"));
  await new Promise((done) => setTimeout(done, 300));
  assert.equal(hooks.find("c"), undefined);
  assert.equal(lines.length, closedAt);
});

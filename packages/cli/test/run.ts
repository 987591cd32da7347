import { type ServiceProcess, startServiceProcess } from "@anvil/core/testing";

export { groupAlive, runAnvil, startAnvil, waitFor } from "@anvil/core/testing";

/** Starts `anvil <service> serve` on a free port of 127.0.0.1 and waits until it answers. */
function startService(
  service: "forge" | "inventory",
  dataDir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<ServiceProcess> {
  return startServiceProcess([service, "serve", "--data-dir", dataDir, ...args], env);
}

/** The forge alone, without SSH. */
export function startForge(
  dataDir: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServiceProcess> {
  return startService("forge", dataDir, ["--ssh-port", "0", ...extraArgs], env);
}

export function startInventory(dataDir: string, extraArgs: string[] = []): Promise<ServiceProcess> {
  return startService("inventory", dataDir, extraArgs, {});
}

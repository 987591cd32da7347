export { freePort, listenLocal, type StartedApp, serviceConfig, startApp } from "./app.ts";
export {
  assertAccessible,
  horizontalOverflow,
  launchBrowser,
  type TestBrowser,
  useBrowser,
} from "./browser.ts";
export { forEachDatabase, TEST_SCRYPT_COST, type TestDatabase } from "./database.ts";
export {
  type HookArgument,
  type HookRunner,
  headerIsOneOf,
  type RunnerHook,
  signedWith,
  startHookRunner,
} from "./hook-runner.ts";
export { kyselyQueriesUnder } from "./layering.ts";
export {
  type Finished,
  groupAlive,
  runAnvil,
  type ServiceProcess,
  type ServiceProcesses,
  type ServiceProcessesOn,
  serviceProcessesOn,
  startAnvil,
  startServiceProcess,
  startServiceProcesses,
  waitFor,
} from "./processes.ts";
export { type RawAnswer, rawBody, rawExchange } from "./raw-http.ts";
export { type Answer, hmacHex, type Received, type Receiver, startReceiver } from "./receiver.ts";
export { type TempDir, tempDir } from "./temp.ts";

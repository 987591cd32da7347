export { freePort, listenLocal, type StartedApp, serviceConfig, startApp } from "./app.ts";
export { forEachDatabase, TEST_SCRYPT_COST, type TestDatabase } from "./database.ts";
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
export { type TempDir, tempDir } from "./temp.ts";

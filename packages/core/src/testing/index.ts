export { freePort, listenLocal, type StartedApp, serviceConfig, startApp } from "./app.ts";
export { forEachDatabase, type TestDatabase } from "./database.ts";
export { type TempDir, tempDir } from "./temp.ts";

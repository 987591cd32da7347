// Run by scripts/test.sh when TEST_PG_URL is set: drops the PostgreSQL test databases that killed
// test runs on this machine left behind.
import { dropAbandonedTestDatabases } from "../packages/core/src/testing/database.ts";

const adminUrl = process.env.TEST_PG_URL;
if (!adminUrl) {
  process.stderr.write("drop-abandoned-test-databases: TEST_PG_URL is not set\n");
  process.exit(2);
}
const dropped = await dropAbandonedTestDatabases(adminUrl);
if (dropped.length > 0)
  process.stderr.write(`test: dropped the databases of killed test runs: ${dropped.join(", ")}\n`);

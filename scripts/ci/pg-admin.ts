// Creates or drops a database through an admin URL, so CI needs no psql client.
import pg from "pg";

const [action, adminUrl, name] = process.argv.slice(2);
if ((action !== "create" && action !== "drop") || !adminUrl || !/^[a-z_][a-z0-9_]*$/.test(name ?? "")) {
  process.stderr.write("usage: pg-admin.ts create|drop ADMIN_URL NAME\n");
  process.exit(2);
}
const client = new pg.Client({ connectionString: adminUrl });
await client.connect();
try {
  await client.query(
    action === "create" ? `create database ${name}` : `drop database if exists ${name} with (force)`,
  );
} finally {
  await client.end();
}

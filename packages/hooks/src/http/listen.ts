// The listening socket, opened first as webhook does (before privileges are dropped and before the
// log file and hooks are read): TCP on -ip/-port, or a Unix socket with -socket. With -secure a
// front reads the first bytes of each connection, so that plain HTTP gets Go's 400 answer.

import http from "node:http";
import type https from "node:https";
import net from "node:net";
import type { HooksConfig } from "../cli/flags.ts";
import { errnoText } from "../go/errors.ts";
import { HTTP_TO_HTTPS_RESPONSE, looksLikeHttp } from "./tls.ts";

export interface Listener {
  /** Receives the requests (plain connections, or decrypted ones fed by the TLS front). */
  readonly http: http.Server;
  /** The socket that listens: `http` itself, or the TLS front. */
  readonly socket: net.Server;
  /** With -secure: where TLS connections go once the certificate is loaded. */
  useTls(server: https.Server): void;
}

/** Go accepts up to 1 MiB of headers (plus slack) where Node stops at 16 KiB. */
export const GO_MAX_HEADER_SIZE = (1 << 20) + 4096;

/** Node server settings that differ from Go's net/http, set as Go behaves (plain and TLS servers alike). */
export function behaveLikeGo(server: http.Server): void {
  // Go keeps idle connections open indefinitely and sends no Keep-Alive header.
  server.keepAliveTimeout = 0;
  // Go bounds a header block by its size alone; Node would also refuse more than 2000 fields.
  server.maxHeadersCount = 0;
  // A client that has closed its sending side after its request (shutdown(SHUT_WR), `nc -N`) still
  // gets its answer from Go; Node would end the connection at the client's FIN, before a command's
  // output is ready. Undocumented in Node's types, but read by its HTTP server for this purpose.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/**
 * Throws Go's message, e.g. `listen tcp 1.2.3.4:80: bind: cannot assign requested address`.
 * With `reusePort`, other processes of the same user may listen on the same TCP port (-workers).
 */
export async function openListener(config: HooksConfig, reusePort = false): Promise<Listener> {
  const server = http.createServer({ maxHeaderSize: GO_MAX_HEADER_SIZE });
  behaveLikeGo(server);
  let tls: https.Server | undefined;
  // TLS connections that arrive while the certificate is still being read wait for it.
  const waiting: net.Socket[] = [];
  const socket = config.secure
    ? net.createServer((connection) => {
        connection.on("error", () => connection.destroy());
        connection.once("data", (first: Buffer) => {
          connection.pause();
          if (looksLikeHttp(first)) return void connection.end(HTTP_TO_HTTPS_RESPONSE);
          connection.unshift(first);
          if (tls === undefined) waiting.push(connection);
          else tls.emit("connection", connection);
        });
      })
    : server;

  const { ip, port } = config;
  if (config.socket === "" && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`listen tcp: address ${port}: invalid port`);
  }
  await new Promise<void>((resolve, reject) => {
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") {
        reject(new Error(`listen tcp: lookup ${ip}: no such host`));
      } else {
        const where = config.socket === "" ? `tcp ${ip}:${port}` : `unix ${config.socket}`;
        reject(new Error(`listen ${where}: bind: ${errnoText(error)}`));
      }
    });
    if (config.socket !== "") socket.listen(config.socket, resolve);
    else socket.listen({ port, host: ip === "" ? undefined : ip, reusePort }, resolve);
  });
  return {
    http: server,
    socket,
    useTls(server) {
      tls = server;
      for (const connection of waiting.splice(0)) {
        if (!connection.destroyed) server.emit("connection", connection);
      }
    },
  };
}

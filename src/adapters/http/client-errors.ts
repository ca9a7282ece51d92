/**
 * Requests Node's HTTP parser refuses (bad syntax, headers too large, sent too slowly) never
 * reach Koa: they are logged and counted here, and answered as Node answers them by default.
 */
import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import type { HttpMetrics } from "./metrics.js";

/** Node's own answers (lib/_http_server.js), by error code; anything else is a 400. */
const ANSWERS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

export function handleClientErrors(server: Server, logger: Logger, metrics: HttpMetrics | undefined): void {
  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => {
    const code = error.code ?? "unknown";
    // A reset is the client leaving, not a request refused: nothing to answer, log or count.
    if (code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    metrics?.clientErrorRefused(code);
    logger.info({ code, reason: error.message, remote_address: socket.remoteAddress ?? null }, "request refused by the HTTP parser");
    // As Node: answer only if nothing of a response went out on this socket yet.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent)
      socket.write(`HTTP/1.1 ${ANSWERS[code] ?? "400 Bad Request"}\r\nConnection: close\r\n\r\n`);
    socket.destroy(error);
  });
}

/**
 * The ceilings: `node dist/bench/hello-servers.js http|koa <port>` answers every request with a
 * small JSON body, from bare `node:http` or from Koa 3 (one middleware, no router).
 */
import { createServer } from "node:http";
import Koa from "koa";

const BODY = JSON.stringify({ hello: "world" });
const [kind = "http", portText = "0"] = process.argv.slice(2);
const port = Number(portText);

if (kind === "koa") {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: "world" };
  });
  const server = app.listen(port, "127.0.0.1");
  server.keepAliveTimeout = 65_000;
} else {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(BODY) });
    response.end(BODY);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, "127.0.0.1");
}
process.once("SIGTERM", () => process.exit(0));

/**
 * The answers under way on a server, so that a stopping process can make every connection close
 * once its answer is out: a keep-alive connection (a client's pool, a load balancer's) must not
 * carry another request to a process about to close its backends. Answers whose headers already
 * went out (event streams) are ended by the stop itself.
 */
import type { Server, ServerResponse } from "node:http";

export class ClosingResponses {
  private readonly open = new Set<ServerResponse>();
  private closing = false;

  static install(server: Server): ClosingResponses {
    const responses = new ClosingResponses();
    server.on("request", (_req, res: ServerResponse) => responses.track(res));
    return responses;
  }

  /** From now on, every answer (those under way, and any later one) closes its connection. */
  closeEach(): void {
    this.closing = true;
    for (const res of this.open) closeAfter(res);
  }

  private track(res: ServerResponse): void {
    if (this.closing) closeAfter(res);
    this.open.add(res);
    res.once("close", () => this.open.delete(res));
  }
}

function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader("Connection", "close");
}

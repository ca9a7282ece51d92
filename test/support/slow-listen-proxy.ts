/**
 * A TCP proxy in front of PostgreSQL that delays what the server sends on the connections of one
 * application name (read from the startup packet, sent in clear on a local connection): the
 * live feed's listening connection (`tessera-listen`) hears every notification late while every
 * other connection of the process is served at once. Order is kept: each chunk is written the
 * delay after it arrived. The delay starts at 0 (the process starts at full speed) and is set
 * with slowDown().
 */
import net from "node:net";

export class SlowListenProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  private port = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    private readonly marker: Buffer,
  ) {
    this.server = net.createServer((client) => this.relay(client));
  }

  private delayMs = 0;

  static async start(targetUrl: string, applicationName: string): Promise<SlowListenProxy> {
    const { hostname, port } = new URL(targetUrl);
    const proxy = new SlowListenProxy({ host: hostname || "127.0.0.1", port: Number(port) || 5432 }, Buffer.from(`\0${applicationName}\0`));
    await new Promise<void>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(0, "127.0.0.1", () => resolve());
    });
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  /** The target URL with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** From now on, what the server sends on the slow connections arrives `delayMs` late. */
  slowDown(delayMs: number): void {
    this.delayMs = delayMs;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target);
    let slow: boolean | undefined;
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.on("data", (chunk: Buffer) => {
      // The first chunk of a connection is its startup packet (no TLS on a local test server).
      slow ??= chunk.includes(this.marker);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!slow || this.delayMs === 0) client.write(chunk);
      else setTimeout(() => client.destroyed || client.write(chunk), this.delayMs).unref();
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  }
}

/**
 * A TCP proxy in front of PostgreSQL or Redis that a test can cut (every live connection
 * destroyed and new ones refused, as when the server goes down) and restore on the same port.
 * A cut can also be armed to fire at an exact point of the traffic: when a chunk a client sends
 * matches a trigger, that chunk is never delivered and every socket is destroyed at once.
 * A stall swallows every byte instead, both ways, while the sockets stay open: a peer that
 * vanished without closing (a network partition), which only timeouts can notice.
 */
import net from "node:net";

/** Decides, for each chunk a client sends towards the server, whether the cut happens now. */
export type CutTrigger = (chunk: Buffer, connection: number) => boolean;

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private armed: { trigger: CutTrigger; fired: () => void } | undefined;
  private connections = 0;
  private stalling = false;
  /** Client sockets whose traffic is swallowed, both ways, for as long as they live. */
  private readonly stalled = new Set<net.Socket>();

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  static async start(targetUrl: string, defaultPort: number): Promise<TcpProxy> {
    const { hostname, port } = new URL(targetUrl);
    const proxy = new TcpProxy({ host: hostname || "127.0.0.1", port: Number(port) || defaultPort }, 0);
    await proxy.restore();
    return proxy;
  }

  /** The target URL with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Whether the proxy accepts connections (false between a cut and its restore). */
  get up(): boolean {
    return this.server !== undefined;
  }

  /** Live client connections (each has its upstream twin). */
  get liveConnections(): number {
    return this.sockets.size / 2;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Destroys every live socket now and refuses new connections until restore(). */
  async cut(): Promise<void> {
    this.armed = undefined;
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Cuts (as cut() does) when a client chunk satisfies `trigger`; that chunk is dropped. Resolves
   * once the cut happened. Replaces any trigger armed before.
   */
  cutWhen(trigger: CutTrigger): Promise<void> {
    return new Promise((resolve) => {
      this.armed = { trigger, fired: resolve };
    });
  }

  /** Swallows every byte from now on, on the live connections and on new ones; nothing is closed. */
  stall(): void {
    this.stalling = true;
    for (const socket of this.clients()) this.stalled.add(socket);
  }

  /** New connections flow again; the stalled ones stay silent, as connections to a vanished peer do. */
  unstall(): void {
    this.stalling = false;
  }

  private clients(): net.Socket[] {
    return [...this.sockets].filter((socket) => this.clientSockets.has(socket));
  }

  private readonly clientSockets = new WeakSet<net.Socket>();

  /** Forgets an armed trigger that has not fired. */
  disarm(): void {
    this.armed = undefined;
  }

  close(): Promise<void> {
    return this.cut();
  }

  private relay(client: net.Socket): void {
    const connection = ++this.connections;
    const upstream = net.connect(this.target);
    this.clientSockets.add(client);
    if (this.stalling) this.stalled.add(client);
    client.on("close", () => this.stalled.delete(client));
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.on("data", (chunk: Buffer) => {
      const armed = this.armed;
      if (armed?.trigger(chunk, connection)) {
        void this.cut().then(armed.fired);
        return;
      }
      if (!this.stalled.has(client)) upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!this.stalled.has(client) && !client.destroyed) client.write(chunk);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  }
}

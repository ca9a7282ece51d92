/**
 * A round-robin TCP front for several `serve` processes, as a load balancer in front of a fleet:
 * each client connection goes to the next process in turn; one that refuses (stopped, restarting)
 * is passed over for the next, and only when every process refuses is the client's connection
 * closed. During a rolling restart the clients thus reconnect to whichever process is up.
 */
import net from "node:net";

export class RoundRobinFront {
  private next = 0;
  private readonly sockets = new Set<net.Socket>();
  /** Connections relayed to each port, in the order of `ports`. */
  readonly relayed: number[];

  private constructor(
    private readonly server: net.Server,
    private readonly ports: readonly number[],
  ) {
    this.relayed = ports.map(() => 0);
  }

  static async start(ports: readonly number[]): Promise<RoundRobinFront> {
    const server = net.createServer();
    const front = new RoundRobinFront(server, ports);
    server.on("connection", (client) => front.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return front;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  private relay(client: net.Socket): void {
    this.track(client);
    client.pause(); // what the client sends waits for the upstream
    const first = this.next;
    this.next = (this.next + 1) % this.ports.length;
    const attempt = (tried: number) => {
      if (client.destroyed) return;
      if (tried === this.ports.length) {
        client.destroy();
        return;
      }
      const index = (first + tried) % this.ports.length;
      const upstream = net.connect({ host: "127.0.0.1", port: this.ports[index] as number });
      let connected = false;
      upstream.once("error", () => {
        if (!connected) attempt(tried + 1);
      });
      upstream.once("connect", () => {
        connected = true;
        this.relayed[index] = (this.relayed[index] ?? 0) + 1;
        this.track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
        client.resume();
      });
    };
    attempt(0);
  }
}

/**
 * Redis MONITOR over a plain socket. ioredis' monitor mode loses track of its command queue when
 * other clients (other test runs on the same server) send commands at the wrong moment, so the
 * lines are parsed here: `+<time> [<db> <client address>] "cmd" "arg" …`.
 */
import net from "node:net";

export interface MonitoredCommand {
  readonly client: string;
  readonly args: string[];
}

export interface RedisMonitor {
  readonly commands: MonitoredCommand[];
  stop(): void;
}

const LINE = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/;

function unquote(text: string): string[] {
  const args: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/g)) args.push((match[1] ?? "").replace(/\\(.)/g, "$1"));
  return args;
}

export function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const commands: MonitoredCommand[] = [];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port) || 6379, hostname || "127.0.0.1");
    let buffered = "";
    let started = false;
    socket.setEncoding("utf8");
    socket.once("error", reject);
    socket.on("connect", () => socket.write("MONITOR\r\n"));
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\r\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (!started && line === "+OK") {
          started = true;
          resolve({ commands, stop: () => socket.destroy() });
          continue;
        }
        const match = LINE.exec(line);
        if (match) commands.push({ client: match[1] ?? "", args: unquote(match[2] ?? "") });
      }
    });
  });
}

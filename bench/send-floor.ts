/**
 * W8B's floor: what one socket write of an event costs on this machine, whoever makes it. A bare
 * process (this one, nothing else running in it) holds `streams` loopback connections, read by a
 * child process, and writes an event-sized chunk to `perBurst` of them in turn, then pauses for
 * the feed's window, like a burst of W8B (10 writes × 30 readers every 15 ms). Reported: the
 * median microseconds per write over the bursts. Most of it is the kernel's: on loopback the
 * sending call also queues the bytes on the receiving socket and wakes its reader.
 */
import { fork } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { sleep } from "./feed-scale-context.js";

export interface SendFloorOptions {
  readonly streams: number;
  readonly perBurst: number;
  readonly pauseMs: number;
  readonly seconds: number;
  readonly eventBytes: number;
}

export async function sendFloorMicros(options: SendFloorOptions): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
    // A reader's connection reset is its own: the floor goes on with the others.
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.splice(sockets.indexOf(socket), 1));
  });
  // A backlog for every stream at once: the reader's connections never wait for a retransmitted SYN.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: options.streams }, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const reader = fork(new URL("./send-floor-reader.js", import.meta.url), [String(port), String(options.streams)], { stdio: "ignore" });
  try {
    const opened = Date.now();
    while (sockets.length < options.streams) {
      if (Date.now() - opened > 60_000) throw new Error(`send floor: ${sockets.length} of ${options.streams} connections opened`);
      await sleep(50);
    }
    const chunk = Buffer.alloc(options.eventBytes, "x");
    const perWrite: number[] = [];
    let next = 0;
    const end = Date.now() + options.seconds * 1000;
    while (Date.now() < end) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < options.perBurst; i += 1) {
        // Spread over the streams, as each write's readers are.
        (sockets[next % sockets.length] as Socket).write(chunk);
        next += 7;
      }
      perWrite.push(Number(process.hrtime.bigint() - started) / 1000 / options.perBurst);
      await sleep(options.pauseMs);
    }
    perWrite.sort((a, b) => a - b);
    return Math.round((perWrite[Math.floor(perWrite.length / 2)] ?? NaN) * 10) / 10;
  } finally {
    reader.kill();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
}

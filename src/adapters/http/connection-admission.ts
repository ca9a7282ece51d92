/**
 * Admission of TCP connections to the API server, before node:http sees them: at most
 * `maxConnections` in all and `maxConnectionsPerAddress` per client address (connections from a
 * trusted proxy carry many clients: only the total bounds them). At a bound, the oldest idle
 * connection (no request in flight: between two requests, or none sent yet) is closed to make
 * room; when none is idle the new connection gets a JSON error at once and is closed, so one
 * client holding connections it does not use never locks the others out.
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { addressKey, type TrustedProxies } from "./client-address.js";
import { describeError, errorBody, type ErrorContext } from "./errors.js";
import { AtCapacityError, TooManyRequestsError } from "./http-errors.js";
import type { RefusalReason } from "./metrics.js";

export interface AdmissionLimits {
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly trustedProxies: TrustedProxies;
}

export interface AdmissionEvents {
  refused(reason: RefusalReason): void;
  idleReclaimed(): void;
}

/** A refused connection may read the answer this long before it is cut. */
const LINGER_MS = 2000;

export class ConnectionAdmission {
  /** Connections with no request in flight, the longest idle first (a Set keeps insertion order). */
  private readonly idle = new Set<Socket>();
  /** Connections with requests in flight, and how many (pipelining). */
  private readonly busy = new Map<Socket, number>();
  private readonly byAddress = new Map<string, Set<Socket>>();
  private readonly keys = new WeakMap<Socket, string>();
  private lingering = 0;
  private readonly answers: Record<"address" | "capacity", string>;

  private constructor(
    private readonly limits: AdmissionLimits,
    private readonly events: AdmissionEvents | undefined,
    errors: ErrorContext & { infoLink: string },
  ) {
    this.answers = {
      address: rawError(new TooManyRequestsError("Too many connections from this address."), errors),
      capacity: rawError(new AtCapacityError(), errors),
    };
  }

  /** Puts the admission in front of `server`'s own connection handling. */
  static install(
    server: Server,
    limits: AdmissionLimits,
    errors: ErrorContext & { infoLink: string },
    events?: AdmissionEvents,
  ): ConnectionAdmission {
    const admission = new ConnectionAdmission(limits, events, errors);
    // node:http documents emitting "connection" as the way to hand it a socket: its own listener
    // runs only for the sockets admitted here.
    const handlers = server.listeners("connection") as ((socket: Socket) => void)[];
    server.removeAllListeners("connection");
    server.on("connection", (socket: Socket) => {
      if (admission.admit(socket)) for (const handler of handlers) handler.call(server, socket);
    });
    server.on("request", (req: IncomingMessage, res: ServerResponse) => admission.started(req.socket, res));
    return admission;
  }

  get counts(): { idle: number; busy: number } {
    return { idle: this.idle.size, busy: this.busy.size };
  }

  private admit(socket: Socket): boolean {
    const peer = socket.remoteAddress;
    if (peer === undefined) {
      socket.destroy(); // closed before it was seen
      return false;
    }
    const key = this.limits.trustedProxies.trusts(peer) ? undefined : addressKey(peer);
    const mine = key === undefined ? undefined : this.byAddress.get(key);
    if (mine && mine.size >= this.limits.maxConnectionsPerAddress && !this.reclaim(mine))
      return this.refuse(socket, "connections_per_address", this.answers.address);
    if (this.idle.size + this.busy.size >= this.limits.maxConnections && !this.reclaim(undefined))
      return this.refuse(socket, "max_connections", this.answers.capacity);
    this.idle.add(socket);
    if (key !== undefined) {
      this.keys.set(socket, key);
      if (mine) mine.add(socket);
      else this.byAddress.set(key, new Set([socket]));
    }
    socket.once("close", () => this.forget(socket));
    return true;
  }

  private started(socket: Socket, res: ServerResponse): void {
    if (!this.idle.delete(socket) && !this.busy.has(socket)) return; // not admitted here
    this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const inFlight = this.busy.get(socket);
      if (inFlight === undefined) return; // the connection closed meanwhile
      if (inFlight > 1) this.busy.set(socket, inFlight - 1);
      else {
        this.busy.delete(socket);
        if (!socket.destroyed) this.idle.add(socket); // idle from now: at the end of the order
      }
    });
  }

  /** Closes the longest idle connection (of `among`, when given); false when none is idle. */
  private reclaim(among: ReadonlySet<Socket> | undefined): boolean {
    for (const socket of this.idle) {
      if (among && !among.has(socket)) continue;
      this.forget(socket);
      socket.destroy();
      this.events?.idleReclaimed();
      return true;
    }
    return false;
  }

  private forget(socket: Socket): void {
    this.idle.delete(socket);
    this.busy.delete(socket);
    const key = this.keys.get(socket);
    if (key === undefined) return;
    this.keys.delete(socket);
    const mine = this.byAddress.get(key);
    mine?.delete(socket);
    if (mine?.size === 0) this.byAddress.delete(key);
  }

  /** Answers at once (before any request: a client reads it as the answer to its first one) and closes. */
  private refuse(socket: Socket, reason: RefusalReason, answer: string): false {
    this.events?.refused(reason);
    socket.on("error", () => {}); // a reset from a client gone already is expected
    // Refused sockets are cut at once when as many linger as connections are allowed.
    if (this.lingering >= this.limits.maxConnections) {
      socket.destroy();
      return false;
    }
    this.lingering += 1;
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    socket.once("close", () => {
      clearTimeout(cut);
      this.lingering -= 1;
    });
    socket.end(answer);
    socket.resume(); // what the client sends is read and dropped, so that closing sends no reset over the answer
    return false;
  }
}

/** The error table's answer to `error` as raw HTTP/1.1 bytes, with `Connection: close`. */
function rawError(error: Error, context: ErrorContext & { infoLink: string }): string {
  const response = describeError(error, context);
  const body = JSON.stringify(errorBody(response, context.infoLink));
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-cache, no-store",
    "X-Content-Type-Options": "nosniff",
    Connection: "close",
    ...response.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}\r\n${head.join("")}\r\n${body}`;
}

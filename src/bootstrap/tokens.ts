/** One typed service identifier per port and service of the composition root. */
import type { ServiceIdentifier } from "inversify";
import type Koa from "koa";
import type { Logger } from "pino";
import type { Authenticator } from "../application/authenticator.js";
import type { ChangeEvents } from "../application/events.js";
import type { HealthService } from "../application/health-service.js";
import type { LiveFeed } from "../application/live-feed.js";
import type { Clock, IdGenerator } from "../application/ports/clock.js";
import type { RecordService } from "../application/record-service.js";
import type { HttpServices } from "../adapters/http/http-services.js";
import type { Backends } from "./backends.js";
import type { Settings } from "./settings.js";

export const TOKENS = {
  Settings: Symbol("Settings") as ServiceIdentifier<Settings>,
  Logger: Symbol("Logger") as ServiceIdentifier<Logger>,
  Clock: Symbol("Clock") as ServiceIdentifier<Clock>,
  IdGenerator: Symbol("IdGenerator") as ServiceIdentifier<IdGenerator>,
  Backends: Symbol("Backends") as ServiceIdentifier<Backends>,
  RecordService: Symbol("RecordService") as ServiceIdentifier<RecordService>,
  ChangeEvents: Symbol("ChangeEvents") as ServiceIdentifier<ChangeEvents>,
  LiveFeed: Symbol("LiveFeed") as ServiceIdentifier<LiveFeed>,
  Authenticator: Symbol("Authenticator") as ServiceIdentifier<Authenticator>,
  HealthService: Symbol("HealthService") as ServiceIdentifier<HealthService>,
  HttpServices: Symbol("HttpServices") as ServiceIdentifier<HttpServices>,
  App: Symbol("App") as ServiceIdentifier<Koa>,
};

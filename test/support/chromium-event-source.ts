/**
 * A live-feed subscriber on Chromium's own `EventSource`, opened by a page of a browser app on
 * another origin with `withCredentials` (the service lists that origin in `cors_origins`). The
 * Basic credentials are the browser's: given to playwright as `httpCredentials`, they answer the
 * service's challenge as a user typing them would, and the browser then sends them itself. What
 * the page sees (opens, events, resyncs, a client that closed for good) reaches the log through
 * an exposed function; the requests, with their `Last-Event-ID` and status, through playwright's
 * network events.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Request } from "playwright-core";
import {
  errorDetail,
  FEED_EVENT_TYPES,
  type FeedEvent,
  type FeedRequest,
  type FeedSubscriber,
  type SubscriberLog,
} from "./feed-subscriber-log.js";

/** The browser app's own server: an empty page on another port, so another origin than the service's. */
export interface AppOrigin {
  readonly origin: string;
  close(): Promise<void>;
}

export async function startAppOrigin(): Promise<AppOrigin> {
  const app: Server = createServer((_req, res) =>
    res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>app</title>"),
  );
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => app.close(() => resolve())),
  };
}

type Report = { kind: "open" } | { kind: "event"; event: FeedEvent } | { kind: "resync" } | { kind: "closed" };

/** Runs in the page: follows the feed at `url`, and starts again without Last-Event-ID on `resync`. */
const FOLLOW = `(url, types) => {
  const follow = () => {
    const source = new EventSource(url, { withCredentials: true });
    source.onopen = () => window.feedReport({ kind: "open" });
    for (const type of types)
      source.addEventListener(type, (e) => window.feedReport({ kind: "event", event: { id: e.lastEventId, type, data: JSON.parse(e.data) } }));
    source.addEventListener("resync", () => {
      source.close();
      window.feedReport({ kind: "resync" });
      follow();
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) window.feedReport({ kind: "closed" });
    };
    window.feedSource = source;
  };
  follow();
}`;

export async function openChromiumSubscriber(
  browser: Browser,
  app: AppOrigin,
  url: string,
  credentials: string,
  log: SubscriberLog,
): Promise<FeedSubscriber> {
  const [username = "", password = ""] = credentials.split(":");
  const context: BrowserContext = await browser.newContext({ httpCredentials: { username, password, origin: new URL(url).origin } });
  const requests = new Map<Request, FeedRequest>();
  const page = await context.newPage();
  page.on("request", (request) => {
    if (request.resourceType() !== "eventsource") return;
    const logged = log.requested(undefined);
    requests.set(request, logged);
    // Only the headers the network stack sent hold Last-Event-ID, which the browser adds itself.
    request.allHeaders().then(
      (headers) => (logged.resumedFrom = headers["last-event-id"]),
      () => undefined,
    );
  });
  page.on("response", (response) => {
    const request = requests.get(response.request());
    if (!request) return;
    request.outcome = response.status();
    if (response.status() !== 200)
      response.text().then(
        (body) => (request.detail = errorDetail(body)),
        () => undefined,
      );
  });
  page.on("requestfailed", (failed) => {
    const request = requests.get(failed);
    if (request && request.outcome === undefined) request.outcome = failed.failure()?.errorText ?? "failed";
  });
  await page.exposeFunction("feedReport", (report: Report) => {
    if (report.kind === "open") log.opened();
    else if (report.kind === "event") log.received(report.event);
    else if (report.kind === "resync") log.resynced();
    else log.gaveUpFor(`the browser's EventSource closed for good (last request: ${String(log.requests.at(-1)?.outcome)})`);
  });
  await page.goto(`${app.origin}/`);
  await page.evaluate(`(${FOLLOW})(${JSON.stringify(url)}, ${JSON.stringify(FEED_EVENT_TYPES)}); null`);
  return { log, readyState: () => page.evaluate<number>("window.feedSource.readyState"), close: () => context.close() };
}

/**
 * The single composition root. Each technology named in settings loads its container module,
 * which binds the port tokens it serves; the services are built here from those ports, by
 * factories, so the core needs no decorators. Unbinding the container (shutdown, or the end of
 * `migrate` and `purge`) closes every resource a module opened.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Container } from "inversify";
import { pino, type Logger } from "pino";
import type { JsonValue } from "../domain/json.js";
import { Authenticator } from "../application/authenticator.js";
import type { ExtensionContext, ResourceSpec, TesseraExtension } from "../application/extension.js";
import type { MembershipChanges } from "../application/memberships/membership-changes.js";
import { HealthService } from "../application/health-service.js";
import type { AccessJournal } from "../application/ports/access-journal.js";
import type { Cache } from "../application/ports/cache.js";
import type { Clock } from "../application/ports/clock.js";
import { ChangeEvents, type CommittedChanges } from "../application/events.js";
import { SingleProcessFence } from "../application/single-process-fence.js";
import { RecordAclEditor } from "../application/shared-records/record-acl-editor.js";
import type { ResourceKinds } from "../application/kinds/resource-kind-policy.js";
import type { SharedRecords } from "../application/ports/shared-records.js";
import { PortableSharedRecords } from "../application/shared-records/portable-shared-records.js";
import type { LiveFeed } from "../application/feed/live-feed.js";
import type { RecordService } from "../application/record-service.js";
import type { AccessService } from "../application/access/access-service.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import { noGroups, type GroupFinder } from "../application/requester.js";
import { COLLECTION_NAME_PATTERN } from "../application/resources.js";
import { createApp } from "../adapters/http/app.js";
import { FeedStreams } from "../adapters/http/feed-streams.js";
import type { HttpOptions, HttpServices } from "../adapters/http/http-services.js";
import { HttpMetrics, type PoolProbe } from "../adapters/http/metrics.js";
import { InProcessBroadcast } from "../adapters/memory/in-process-broadcast.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { UuidIdGenerator } from "../adapters/system/uuid-id-generator.js";
import { ACCOUNTS, bindAccounts, type Accounts } from "./auth-accounts.js";
import { authCapabilities, authenticationPolicies, unregisteredPolicies } from "./auth-policies.js";
import { projectRoot } from "./project-root.js";
import { buildResources } from "./resources.js";
import { addGroupResource, bindGroupWrites, groupResourceProblems } from "./group-resource.js";
import { bindTree, treeCapabilities, treeProblems } from "./tree-binding.js";
import type { HttpTree } from "../adapters/http/http-tree.js";
import { permissionBackendProblem, PROJECT_NAME, SettingsError, text, type Settings } from "./settings.js";
import { DEFAULT_EOS_MESSAGE } from "./settings-table.js";
import { observedPort } from "./observed-ports.js";
import { bindMemberships } from "./memberships-binding.js";
import { bindAccessService, bindLiveFeed, bindServices, bindSharedRecords } from "./service-bindings.js";
import { technologyModules } from "./technologies.js";
import { TOKENS, type Migrator, type SchemaMigration } from "./tokens.js";

export interface CompositionOptions {
  readonly extensions?: readonly TesseraExtension[];
  readonly logger?: Logger;
  readonly clock?: Clock;
}

const PACKAGE = JSON.parse(readFileSync(path.join(projectRoot(), "package.json"), "utf8")) as { version: string };
export const PROJECT_VERSION = PACKAGE.version;
const PROJECT_DOCS = "https://github.com/tessera-records/tessera#readme";
const OPTIONAL_ACCOUNTS = { serviceIdentifier: ACCOUNTS, optional: true } as const;

export function buildContainer(settings: Settings, options: CompositionOptions = {}): Container {
  const extensions = options.extensions ?? [];
  const specs = resourceSpecs(settings, extensions);
  checkComposition(settings, extensions, specs);
  const resources = buildResources(specs, settings.all);
  const container = new Container({ defaultScope: "Singleton" });
  addGroupResource(resources, settings);
  const metrics = settings.metricsEnabled ? new HttpMetrics() : undefined;
  container.bind(TOKENS.Settings).toConstantValue(settings);
  container.bind(TOKENS.Logger).toConstantValue(options.logger ?? pino({ level: settings.logLevel, base: { name: PROJECT_NAME } }));
  container.bind(TOKENS.Clock).toConstantValue(options.clock ?? new SystemClock());
  container.bind(TOKENS.IdGenerator).toConstantValue(new UuidIdGenerator());
  container.load(...technologyModules(settings));
  checkPorts(container);
  // Change signals for the live feed: between processes where the storage offers it, else in process.
  if (!container.isBound(TOKENS.ChangeBroadcast)) container.bind(TOKENS.ChangeBroadcast).toResolvedValue(() => new InProcessBroadcast());
  if (!container.isBound(TOKENS.PrincipalFence)) container.bind(TOKENS.PrincipalFence).toConstantValue(new SingleProcessFence());
  // Every port call counts in the request's backend time and, failing, in the metrics.
  container.onActivation(TOKENS.RecordStore, (_context, port) => observedPort(port, "storage", metrics));
  container.onActivation(TOKENS.AccessJournal, (_context, port) => observedPort(port, "storage", metrics));
  // The portable SharedRecords calls the ports above, already timed; a technology's own is timed as a whole.
  container.onActivation(TOKENS.SharedRecords, (_context, port) =>
    port instanceof PortableSharedRecords ? port : observedPort(port, "storage", metrics),
  );
  container.onActivation(TOKENS.PermissionStore, (_context, port) => observedPort(port, "permission", metrics));
  container.onActivation(TOKENS.PrincipalsWithCheck, (_context, port) => observedPort(port, "permission", metrics));
  container.onActivation(TOKENS.Cache, (_context, port) => observedPort(port, "cache", metrics));
  const permissionStore = { serviceIdentifier: TOKENS.PermissionStore, optional: true } as const;

  container.bind(TOKENS.Migrator).toResolvedValue(
    (
      migrations: SchemaMigration[] | undefined,
      records: RecordStore,
      journal: AccessJournal,
      permissions: PermissionStore | undefined,
      cache: Cache,
    ): Migrator => ({
      async migrate() {
        for (const migration of migrations ?? []) await migration.migrate();
        await records.initializeSchema();
        await journal.initializeSchema();
        await permissions?.initializeSchema();
        await cache.initializeSchema();
      },
    }),
    [
      { serviceIdentifier: TOKENS.SchemaMigration, isMultiple: true, optional: true },
      TOKENS.RecordStore,
      TOKENS.AccessJournal,
      permissionStore,
      TOKENS.Cache,
    ],
  );

  container.bind(TOKENS.ChangeEvents).toResolvedValue(
    (logger: Logger) => {
      const events = new ChangeEvents((error, event) =>
        logger.error(
          { err: error, event: "scope" in event ? event.scope : { collection: event.collection, action: event.action } },
          "a change listener failed",
        ),
      );
      for (const extension of extensions) if (extension.onResourceChanged) events.onResourceChanged(extension.onResourceChanged);
      return events;
    },
    [TOKENS.Logger],
  );

  bindSharedRecords(container);
  bindServices(container, settings);
  bindMemberships(container, settings, () => [...resources.values()].map((r) => r.definition));
  bindLiveFeed(container, settings);
  bindAccessService(container, settings);
  bindGroupWrites(container, settings, resources);
  bindTree(container, settings);

  bindAccounts(container, settings);
  container.bind(TOKENS.Authenticator).toResolvedValue(
    (
      stored: PermissionStore | undefined,
      shared: SharedRecords,
      kinds: ResourceKinds,
      changes: CommittedChanges,
      cache: Cache,
      logger: Logger,
      accounts: Accounts | undefined,
      memberships: MembershipChanges | undefined,
    ) => {
      const resource = (name: string) => resources.get(name)?.definition;
      const context: ExtensionContext = {
        settings: settings.all,
        permissions: stored,
        // Record ACL changes by code go through SharedRecords as the API's do (lost access, new version).
        acls: stored && new RecordAclEditor({ shared, kinds, resource, changes }),
        memberships,
        groups: memberships && { changed: (holder, principal, change) => memberships.changedElsewhere(holder, principal, change) },
      };
      const groups = groupFinder(extensions, context);
      const deps = { settings, cache, context, warn: (message: string) => logger.warn(message), ...(accounts ? { accounts } : {}) };
      return new Authenticator(authenticationPolicies(settings.auth.policies, extensions, deps), groups.find, groups.fromPermissions);
    },
    [
      permissionStore,
      TOKENS.SharedRecords,
      TOKENS.ResourceKinds,
      TOKENS.CommittedChanges,
      TOKENS.Cache,
      TOKENS.Logger,
      OPTIONAL_ACCOUNTS,
      { serviceIdentifier: TOKENS.Memberships, optional: true },
    ],
  );

  container.bind(TOKENS.HealthService).toResolvedValue(
    (records: RecordStore, permissions: PermissionStore | undefined, cache: Cache) => {
      const health = new HealthService(settings.heartbeatTimeoutSeconds * 1000);
      health.register("storage", () => records.heartbeat());
      health.register("permission", () => (permissions ? permissions.heartbeat() : Promise.resolve(null)));
      health.register("cache", () => cache.heartbeat());
      for (const extension of extensions)
        for (const [name, check] of Object.entries(extension.heartbeatChecks ?? {})) health.register(name, check);
      return health;
    },
    [TOKENS.RecordStore, permissionStore, TOKENS.Cache],
  );

  container.bind(TOKENS.HttpServices).toResolvedValue(
    (
      records: RecordService,
      authenticator: Authenticator,
      health: HealthService,
      clock: Clock,
      logger: Logger,
      unitOfWork: UnitOfWork,
      feed: LiveFeed,
      pools: PoolProbe[] | undefined,
      accounts: Accounts | undefined,
      access: AccessService,
      tree: HttpTree | undefined,
    ): HttpServices => {
      metrics?.observePools(pools ?? []);
      metrics?.observeFeed(() => feed.subscriberCount);
      return {
        options: httpOptions(settings),
        records,
        access,
        authenticator,
        unitOfWork,
        resources,
        health,
        clock,
        logger,
        feed,
        feedStreams: new FeedStreams(Math.round(settings.feedRetrySeconds * 1000)),
        versionInfo: {
          name: PROJECT_NAME,
          version: PROJECT_VERSION,
          source: "https://github.com/tessera-records/tessera",
          commit: text(settings.all.commit ?? "unknown"),
        },
        ...(metrics ? { metrics } : {}),
        ...(accounts ? { accounts: accounts.service } : {}),
        ...(tree ? { tree } : {}),
      };
    },
    [
      TOKENS.RecordService,
      TOKENS.Authenticator,
      TOKENS.HealthService,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.UnitOfWork,
      TOKENS.LiveFeed,
      { serviceIdentifier: TOKENS.ConnectionPool, isMultiple: true, optional: true },
      OPTIONAL_ACCOUNTS,
      TOKENS.AccessService,
      { serviceIdentifier: TOKENS.Tree, optional: true },
    ],
  );

  container.bind(TOKENS.App).toResolvedValue((services: HttpServices) => createApp(services), [TOKENS.HttpServices]);
  return container;
}

/** Every port a service needs has a technology serving it; SharedRecords comes with the ACEs it joins. */
function checkPorts(container: Container): void {
  const missing = (["RecordStore", "AccessJournal", "Cache", "UnitOfWork"] as const).filter((port) => !container.isBound(TOKENS[port]));
  if (missing.length > 0) throw new Error(`no configured backend serves ${missing.join(", ")}`);
  if (container.isBound(TOKENS.SharedRecords) && !container.isBound(TOKENS.PermissionStore))
    throw new Error("SharedRecords is bound without a PermissionStore whose ACEs it could join");
}

/** Resources from settings, then those defined in code (which win on a shared name). */
function resourceSpecs(settings: Settings, extensions: readonly TesseraExtension[]): ResourceSpec[] {
  const byName = new Map<string, ResourceSpec>(settings.resources.map((r) => [r.name, { name: r.name, kind: r.kind }]));
  for (const extension of extensions) for (const spec of extension.resources ?? []) byName.set(spec.name, spec);
  return [...byName.values()];
}

/** What settings alone cannot check: resources and policies that code adds. */
function checkComposition(settings: Settings, extensions: readonly TesseraExtension[], specs: readonly ResourceSpec[]): void {
  const problems: string[] = [];
  const missingBackend = permissionBackendProblem(settings.permission, specs);
  if (missingBackend) problems.push(missingBackend);
  for (const spec of specs)
    if (!COLLECTION_NAME_PATTERN.test(spec.name))
      problems.push(`resource "${spec.name}" has an invalid name (letters, digits, _; starting with a letter)`);
  problems.push(...unregisteredPolicies(settings.auth.policies, extensions));
  problems.push(...groupResourceProblems(settings, specs));
  problems.push(...treeProblems(settings, specs));
  if (problems.length > 0) throw new SettingsError([...new Set(problems)]);
}

/** The last extension's group finder, else the permission backend's user principals. */
function groupFinder(extensions: readonly TesseraExtension[], context: ExtensionContext): { find: GroupFinder; fromPermissions: boolean } {
  const custom = [...extensions].reverse().find((e) => e.groupFinder);
  if (custom?.groupFinder) return { find: custom.groupFinder(context), fromPermissions: false };
  const permissions = context.permissions;
  return permissions
    ? { find: (userId, held) => permissions.userPrincipals(userId, held), fromPermissions: true }
    : { find: noGroups, fromPermissions: false };
}

function httpOptions(settings: Settings): HttpOptions {
  const all = settings.all;
  const eosDate = typeof all.eos === "string" ? new Date(all.eos) : undefined;
  return {
    projectName: PROJECT_NAME,
    projectVersion: PROJECT_VERSION,
    projectDocs: PROJECT_DOCS,
    versionPrefixRedirectEnabled: settings.versionPrefixRedirectEnabled,
    trailingSlashRedirectEnabled: settings.trailingSlashRedirectEnabled,
    versionPrefixRedirectTtlSeconds: settings.versionPrefixRedirectTtlSeconds,
    trailingSlashRedirectTtlSeconds: settings.trailingSlashRedirectTtlSeconds,
    paginateBy: settings.paginateBy,
    storageMaxFetchSize: settings.storageMaxFetchSize,
    retryAfterSeconds: settings.retryAfterSeconds,
    backoff: settings.backoff,
    corsOrigins: settings.corsOrigins,
    corsMaxAgeSeconds: settings.corsMaxAgeSeconds,
    errorInfoLink: settings.errorInfoLink,
    httpScheme: settings.httpScheme,
    httpHost: settings.httpHost,
    readonly: settings.readonly,
    maxBodyBytes: settings.maxBodyBytes,
    batchMaxRequests: settings.batchMaxRequests,
    inputLimits: {
      maxJsonDepth: settings.maxJsonDepth,
      maxFilters: settings.maxFilters,
      maxSortFields: settings.maxSortFields,
      maxUrlLength: settings.maxUrlLength,
    },
    feedBufferBytes: settings.feedBufferBytes,
    feedLimits: {
      maxStreamsPerAddress: settings.feedMaxStreamsPerAddress,
      maxStreamsPerUser: settings.feedMaxStreamsPerUser,
      maxLifetimeSeconds: settings.feedMaxLifetimeSeconds,
    },
    trustedProxies: settings.connections.trustedProxies,
    endOfService:
      eosDate !== undefined || all.eos_message !== undefined
        ? {
            hardEol: eosDate && !Number.isNaN(eosDate.getTime()) ? eosDate : undefined,
            message: text(all.eos_message ?? DEFAULT_EOS_MESSAGE),
            url: text(all.eos_url ?? PROJECT_DOCS),
          }
        : undefined,
    publicSettings: publicSettings(settings),
    metricsOnApiPort: settings.metricsEnabled && settings.metricsListenPort === undefined,
    adminEnabled: settings.adminEnabled,
    capabilities: { ...authCapabilities(settings.auth.policies, PROJECT_DOCS), ...treeCapabilities(settings, PROJECT_DOCS) },
  };
}

/** `batch_max_requests`, `readonly` and `public_settings`, named as public_settings names them. */
function publicSettings(settings: Settings): Record<string, JsonValue> {
  const shown: Record<string, JsonValue> = { batch_max_requests: settings.batchMaxRequests, readonly: settings.readonly };
  for (const name of settings.publicSettings) {
    const bare = name.startsWith(`${PROJECT_NAME}.`) ? name.slice(PROJECT_NAME.length + 1) : name;
    shown[name] = settings.all[bare] ?? null;
  }
  return shown;
}

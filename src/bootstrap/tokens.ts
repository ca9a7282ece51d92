/** One typed service identifier per port and service of the composition root. */
import type { WriteConsequencesOf } from "../application/resources.js";
import type { ServiceIdentifier } from "inversify";
import type Koa from "koa";
import type { Logger } from "pino";
import type { AccessJournal } from "../application/ports/access-journal.js";
import type { Authenticator } from "../application/authenticator.js";
import type { ChangeEvents } from "../application/events.js";
import type { MembershipChanges } from "../application/memberships/membership-changes.js";
import type { HealthService } from "../application/health-service.js";
import type { Cache } from "../application/ports/cache.js";
import type { ChangeBroadcast } from "../application/ports/change-broadcast.js";
import type { LiveFeed } from "../application/feed/live-feed.js";
import type { Clock, IdGenerator } from "../application/ports/clock.js";
import type { PrincipalsWithCheck } from "../application/ports/principals-with-check.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { PrincipalFence } from "../application/ports/principal-fence.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { SharedRecords } from "../application/ports/shared-records.js";
import type { ResourceKinds } from "../application/kinds/resource-kind-policy.js";
import type { CommittedChanges } from "../application/events.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import type { HttpTree } from "../adapters/http/http-tree.js";
import type { TreeResources } from "../application/tree/tree-places.js";
import type { RecordService } from "../application/record-service.js";
import type { AccessService } from "../application/access/access-service.js";
import type { HttpServices } from "../adapters/http/http-services.js";
import type { PoolProbe } from "../adapters/http/metrics.js";
import type { Settings } from "./settings.js";

/** A step of `tessera migrate` that a technology adds (its migrations), before the ports' own. */
export interface SchemaMigration {
  migrate(): Promise<void>;
}

/** `tessera migrate`: every technology's migrations, then each port's initializeSchema. */
export interface Migrator {
  migrate(): Promise<void>;
}

export const TOKENS = {
  Settings: Symbol("Settings") as ServiceIdentifier<Settings>,
  Logger: Symbol("Logger") as ServiceIdentifier<Logger>,
  Clock: Symbol("Clock") as ServiceIdentifier<Clock>,
  IdGenerator: Symbol("IdGenerator") as ServiceIdentifier<IdGenerator>,
  // Ports, bound by the technology modules that the settings name.
  RecordStore: Symbol("RecordStore") as ServiceIdentifier<RecordStore>,
  /** Bound by the storage technology, beside the RecordStore whose listings read it. */
  AccessJournal: Symbol("AccessJournal") as ServiceIdentifier<AccessJournal>,
  /** Bound only when a permission backend is configured. */
  PermissionStore: Symbol("PermissionStore") as ServiceIdentifier<PermissionStore>,
  Cache: Symbol("Cache") as ServiceIdentifier<Cache>,
  /** Bound by the storage technology. */
  UnitOfWork: Symbol("UnitOfWork") as ServiceIdentifier<UnitOfWork>,
  /** Kinto's resource tree; bound while a permission backend is configured. */
  Tree: Symbol("Tree") as ServiceIdentifier<HttpTree>,
  /** The tree's lists as resources; bound with Tree. */
  TreeResources: Symbol("TreeResources") as ServiceIdentifier<TreeResources>,
  /**
   * Records with their ACL: bound by a technology that keeps both in one database (PostgreSQL),
   * else the composition root binds the portable one over RecordStore and PermissionStore.
   */
  SharedRecords: Symbol("SharedRecords") as ServiceIdentifier<SharedRecords>,
  /** A capability of the permission backend: bound where principals and ACEs share its database. */
  PrincipalsWithCheck: Symbol("PrincipalsWithCheck") as ServiceIdentifier<PrincipalsWithCheck>,
  /** Multi-bound: one per connection pool a technology opens, for metrics. */
  ConnectionPool: Symbol("ConnectionPool") as ServiceIdentifier<PoolProbe>,
  /** Change signals for the live feed; a technology sharing them between processes binds it. */
  ChangeBroadcast: Symbol("ChangeBroadcast") as ServiceIdentifier<ChangeBroadcast>,
  /** Principal changes wait for other processes' streams; a technology sharing leases between processes binds it. */
  PrincipalFence: Symbol("PrincipalFence") as ServiceIdentifier<PrincipalFence>,
  /** True where the permission backend's writes join the storage's unit of work (one PostgreSQL database). */
  PermissionsShareUnitOfWork: Symbol("PermissionsShareUnitOfWork") as ServiceIdentifier<boolean>,
  /** Multi-bound: one per technology with migrations of its own. */
  SchemaMigration: Symbol("SchemaMigration") as ServiceIdentifier<SchemaMigration>,
  Migrator: Symbol("Migrator") as ServiceIdentifier<Migrator>,
  // Services.
  /** Membership changes as one use case (recorded, journaled, announced); bound when a permission backend is. */
  Memberships: Symbol("Memberships") as ServiceIdentifier<MembershipChanges>,
  /** What a write of the group resource entails (its members hold its principal); bound when a permission backend is. */
  WriteConsequences: Symbol("WriteConsequences") as ServiceIdentifier<WriteConsequencesOf>,
  RecordService: Symbol("RecordService") as ServiceIdentifier<RecordService>,
  AccessService: Symbol("AccessService") as ServiceIdentifier<AccessService>,
  ChangeEvents: Symbol("ChangeEvents") as ServiceIdentifier<ChangeEvents>,
  /** ChangeEvents announced after the commit of the unit of work they belong to. */
  CommittedChanges: Symbol("CommittedChanges") as ServiceIdentifier<CommittedChanges>,
  /** The policy of every resource kind, built once. */
  ResourceKinds: Symbol("ResourceKinds") as ServiceIdentifier<ResourceKinds>,
  LiveFeed: Symbol("LiveFeed") as ServiceIdentifier<LiveFeed>,
  Authenticator: Symbol("Authenticator") as ServiceIdentifier<Authenticator>,
  HealthService: Symbol("HealthService") as ServiceIdentifier<HealthService>,
  HttpServices: Symbol("HttpServices") as ServiceIdentifier<HttpServices>,
  App: Symbol("App") as ServiceIdentifier<Koa>,
};

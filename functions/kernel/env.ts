import type { Context } from "hono";
import type { Database } from "./db_types";
import type { DeployToken, User } from "../../db/schema";

/**
 * A message of the webhooks queue (`WEBHOOKS_QUEUE`), produced by `hookEvent` and consumed by
 * functions/shared/webhooks/deliver.ts. An event names rows by id; the payload is built by the consumer.
 */
export type HookEvent =
  | { kind: "issue"; projectId: number; id: number; action: "open" | "update" | "close" | "reopen" | "merge"; userId: number; before?: Record<string, unknown> | null }
  | { kind: "merge_request"; projectId: number; id: number; action: "open" | "update" | "close" | "reopen" | "merge"; userId: number; before?: Record<string, unknown> | null }
  | { kind: "note"; projectId: number; id: number; userId: number }
  | { kind: "push"; projectId: number }
  /** A pipeline status transition, reported by the pipeline coordinator (shared/ci/finished.ts). */
  | { kind: "pipeline"; projectId: number; id: number; status: string }
  /** A job status change, reported by `jobStatusChanged` (shared/ci/finished.ts), the one reporter. */
  | { kind: "job"; projectId: number; id: number; status: string }
  /**
   * A deployment's status transition into running, success, failed or canceled (Deployments::HooksWorker):
   * a job's (through `jobStatusChanged`) or one written through the deployments API; `statusChangedAt` ISO.
   */
  | { kind: "deployment"; projectId: number; id: number; status: string; statusChangedAt: string }
  /**
   * A wiki page written through the API or pushed with git (WikiPages::*Service#execute_hooks,
   * Git::WikiPushService): the page file `path` as it is at `sha` (for a deletion, the commit before it).
   */
  | { kind: "wiki_page"; projectId: number; wikiId: number; action: "create" | "update" | "delete"; userId: number; path: string; sha: string }
  /**
   * A group wiki's page written through the API or pushed with git: the same as `wiki_page`, for the
   * group hooks of the group and its ancestors (EE's Group#execute_hooks).
   */
  | { kind: "group_wiki_page"; groupId: number; wikiId: number; action: "create" | "update" | "delete"; userId: number; path: string; sha: string }
  /**
   * A subgroup created or deleted (EE Group#execute_subgroup_hooks): for the group hooks of its parent
   * and the parent's ancestors with `subgroup_events`. The subgroup travels in the event, since a deleted
   * one is gone when the queue runs.
   */
  | { kind: "subgroup"; action: "create" | "destroy"; parentId: number; subgroup: HookSubgroup }
  /** A release made, changed or deleted through the API, as it is after the change (before, for a deletion). */
  | { kind: "release"; projectId: number; action: "create" | "update" | "delete"; release: HookRelease };

/** What a subgroup hook shows of the subgroup (Gitlab::HookData::SubgroupBuilder). */
export type HookSubgroup = { id: number; name: string; path: string; fullPath: string; createdAt: string; updatedAt: string };

/** What a release hook shows of a release (Release#hook_attrs and its links), carried by the event itself. */
export type HookRelease = {
  id: number;
  tag: string;
  name: string | null;
  description: string | null;
  sha: string | null;
  createdAt: string;
  releasedAt: string;
  links: { id: number; name: string; url: string; linkType: string }[];
};

export type WebhookMessage =
  | { type: "event"; baseUrl: string; event: HookEvent }
  | { type: "delivery"; baseUrl: string; hookId: number; header: string; payload: unknown; uuid: string }
  /** A merge request event to one external status check (`ExternalStatusCheck#async_execute`). */
  | { type: "status_check"; baseUrl: string; checkId: number; payload: unknown }
  /** One request of a chat integration's notification (Integrations::BaseChatNotification#notify). */
  | { type: "chat"; baseUrl: string; integrationId: number; contentType: string; body: string };

/**
 * A message of the push mirrors' queue (`MIRRORS_QUEUE`, functions/shared/remote_mirrors): a project's
 * refs moved (the consumer fans out to its enabled mirrors), or one mirror to update (retried alone).
 */
export type MirrorMessage = { kind: "project"; projectId: number } | { kind: "mirror"; mirrorId: number };

/** A message of `edgeforge-registry` (functions/container_registry/consumer.ts): ids only. */
export type RegistryMessage = { kind: "cleanup_policy"; projectId: number } | { kind: "garbage_collect" };

/** Bindings of wrangler.toml and the `--var`s of scripts/start.mjs, typed by hand. */
export type Bindings = {
  DATABASE_URL: string;
  /** `host:port` of scripts/ws-proxy.mjs; absent in production (the Neon driver's defaults reach Neon). */
  WS_PROXY?: string;
  /** Locally: the proxy's raw TCP port (host:port); the driver skips the WebSocket layer. */
  PG_TCP_PROXY?: string;
  EXTERNAL_URL?: string;
  /** How long a request waits for its database session before answering 503 (default 1800 ms). */
  DB_CONNECT_TIMEOUT_MS?: string;
  /**
   * Internal (tests, benches): when set, responses carry `X-Query-Count` and `X-Retry-Count` (the
   * deadlock and serialization-failure retries of kernel/db.ts `createDb` during the request).
   */
  QUERY_COUNT_HEADER?: string;
  /** Internal (tests): when set, responses carry `X-Route: <METHOD> <route pattern>` (the OpenAPI contract test). */
  ROUTE_HEADER?: string;
  /** Internal (`npm run sweep`): when "1", administrators may read the fuzz registry at `/-/fuzz-registry`. */
  FUZZ_REGISTRY?: string;
  /** R2 (wrangler.toml `[[r2_buckets]]`): uploaded files such as incident metric images. */
  BLOBS: R2Bucket;
  /** Base64 of the raw 32-byte Ed25519 public key that signs licenses (`POST /license`); unset: uploads are refused. */
  LICENSE_PUBLIC_KEY?: string;
  /**
   * The LDAP servers, a JSON array (functions/shared/ldap/config.ts, docs/directory_and_imports.md);
   * unset: LDAP is off and its routes answer 404.
   */
  LDAP_SERVERS?: string;
  /**
   * The S3 endpoint of `POST /projects/remote-import-s3` (`http://host:port`, path-style requests); unset:
   * AWS (`https://<bucket>.s3.<region>.amazonaws.com`). For S3-compatible stores and local tests.
   */
  IMPORT_S3_ENDPOINT?: string;
  /** Durable Object namespace of `PipelineCoordinator` (functions/shared/ci/pipeline_coordinator.ts, docs/ci.md, "The pipeline coordinator"). */
  PIPELINES: DurableObjectNamespace;
  /** Queue `edgeforge-webhooks` (wrangler.toml): hook events and deliveries (functions/shared/webhooks). */
  WEBHOOKS_QUEUE?: Queue<WebhookMessage>;
  /** Queue `edgeforge-mirrors` (wrangler.toml): push mirror updates (functions/shared/remote_mirrors). */
  MIRRORS_QUEUE?: Queue<MirrorMessage>;
  /** Queues (wrangler.toml `[[queues.producers]]`): messages carry row ids only (docs/architecture.md, "Queues, crons and Durable Objects"). */
  ALERTS_QUEUE: Queue<{ receiptId: number }>;
  EXPORTS_QUEUE: Queue<{ kind: "export" | "import" | "group_export" | "group_import"; id: number }>;
  /** `edgeforge-registry`: container cleanup policies to run and garbage collection sweeps (functions/container_registry/consumer.ts). */
  REGISTRY_QUEUE: Queue<RegistryMessage>;
  /**
   * How long a manifest or blob queued for garbage collection waits before the sweep reviews it, as a Go
   * duration (`24h`, the default as in GitLab's registry; `0` reviews at once): functions/container_registry/gc.ts.
   */
  REGISTRY_GC_REVIEW_DELAY?: string;
  /** Queue `edgeforge-pages` (wrangler.toml): a succeeded `pages` job to publish (functions/pages/consumer.ts). */
  PAGES_QUEUE?: Queue<{ jobId: number }>;
  /** The domain Pages sites are served under, `<namespace>.<PAGES_DOMAIN>` (docs/pages.md); default `pages.localhost`. */
  PAGES_DOMAIN?: string;
  /** Static assets (wrangler.toml `[assets]`, built by scripts/assets.mjs): the reference page's script, the file templates' catalogs. */
  ASSETS?: Fetcher;
};

/** Who is calling: the user, through which token, with which scopes. */
export type Actor = {
  user: User;
  isAdmin: boolean;
  scopes: readonly string[];
  tokenId: number;
  /** The admin who impersonates `user` through Sudo, when they do. */
  sudoFrom: User | null;
  /** The running CI job whose job token authenticated the request (routes that accept job tokens only). */
  job?: { id: number; pipelineId: number; projectId: number };
};

export type Variables = {
  db: () => Database;
  actor: Actor | null;
  /**
   * The deploy token that authenticated the request, on the routes that accept one (kernel/auth.ts
   * `DEPLOY_TOKEN_ROUTES`); `actor` is then null: a deploy token is no user. `findProject`,
   * `authorize` and `callerMay` (kernel/abilities.ts) apply its reach and scopes.
   */
  deployToken?: DeployToken;
  requestId: string;
  queryCount: number;
  /** Statements and transactions run again after a deadlock or serialization failure (kernel/db.ts). */
  retryCount: number;
  /** How the matched route's errors are written (kernel/router.ts `errorFormat`); unset: GitLab's default. */
  errorFormat?: ErrorFormat;
};

/**
 * A Grape API's own `error_formatter`. `message`: a string error (Grape's parameter validation,
 * `error!("…")`) is written `{"message": "…"}` instead of `{"error": "…"}`; errors that are already
 * objects stay as they are (lib/api/feature_flags_user_lists.rb).
 */
export type ErrorFormat = "message";

export type AppEnv = { Bindings: Bindings; Variables: Variables };
export type Ctx = Context<AppEnv>;

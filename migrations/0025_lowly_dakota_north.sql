CREATE TABLE "geo_nodes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "geo_nodes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"url" text NOT NULL,
	"internal_url" text,
	"primary" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"files_max_capacity" integer DEFAULT 10 NOT NULL,
	"repos_max_capacity" integer DEFAULT 25 NOT NULL,
	"verification_max_capacity" integer DEFAULT 100 NOT NULL,
	"container_repositories_max_capacity" integer DEFAULT 10 NOT NULL,
	"sync_object_storage" boolean DEFAULT false NOT NULL,
	"selective_sync_type" text,
	"selective_sync_shards" text[] DEFAULT '{}'::text[] NOT NULL,
	"selective_sync_namespace_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"minimum_reverification_interval" integer DEFAULT 7 NOT NULL,
	"oauth_application_uid" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "index_geo_nodes_on_lower_name" ON "geo_nodes" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "index_geo_nodes_on_primary" ON "geo_nodes" USING btree ("primary") WHERE "primary";
CREATE TABLE "ldap_group_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ldap_group_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"cn" text,
	"filter" text,
	"group_access" integer NOT NULL,
	"provider" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saml_group_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "saml_group_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"saml_group_name" text NOT NULL,
	"access_level" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "ldap" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "ldap_group_links" ADD CONSTRAINT "ldap_group_links_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saml_group_links" ADD CONSTRAINT "saml_group_links_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_ldap_group_links_on_group_provider_cn" ON "ldap_group_links" USING btree ("group_id","provider","cn") WHERE "ldap_group_links"."cn" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_ldap_group_links_on_group_provider_filter" ON "ldap_group_links" USING btree ("group_id","provider","filter") WHERE "ldap_group_links"."filter" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_saml_group_links_on_group_id_and_saml_group_name" ON "saml_group_links" USING btree ("group_id","saml_group_name");--> statement-breakpoint
CREATE INDEX "index_saml_group_links_on_saml_group_name" ON "saml_group_links" USING btree ("saml_group_name");
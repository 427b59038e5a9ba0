CREATE TABLE "packages_build_infos" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "packages_build_infos_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"package_id" integer NOT NULL,
	"pipeline_id" integer
);
--> statement-breakpoint
ALTER TABLE "packages_build_infos" ADD CONSTRAINT "packages_build_infos_package_id_packages_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_build_infos" ADD CONSTRAINT "packages_build_infos_pipeline_id_ci_pipelines_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "public"."ci_pipelines"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_packages_build_infos_package_id_id" ON "packages_build_infos" USING btree ("package_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_packages_build_infos_on_package_id_and_pipeline_id" ON "packages_build_infos" USING btree ("package_id","pipeline_id");--> statement-breakpoint
CREATE INDEX "index_packages_build_infos_on_pipeline_id" ON "packages_build_infos" USING btree ("pipeline_id");
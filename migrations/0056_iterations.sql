CREATE TABLE "iterations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "iterations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"group_id" integer NOT NULL,
	"title" text,
	"description" text,
	"start_date" date NOT NULL,
	"due_date" date NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lists" ADD COLUMN "iteration_id" integer;--> statement-breakpoint
ALTER TABLE "iterations" ADD CONSTRAINT "iterations_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_iterations_on_group_id_and_iid" ON "iterations" USING btree ("group_id","iid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_iterations_on_group_id_and_title" ON "iterations" USING btree ("group_id","title");--> statement-breakpoint
CREATE INDEX "index_iterations_on_group_id_and_start_date" ON "iterations" USING btree ("group_id","start_date");--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_iteration_id_iterations_id_fk" FOREIGN KEY ("iteration_id") REFERENCES "public"."iterations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_lists_on_board_id_and_iteration_id" ON "lists" USING btree ("board_id","iteration_id") WHERE iteration_id IS NOT NULL;
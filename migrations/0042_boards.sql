CREATE TABLE "board_labels" (
	"board_id" integer NOT NULL,
	"label_id" integer NOT NULL,
	CONSTRAINT "board_labels_board_id_label_id_pk" PRIMARY KEY("board_id","label_id")
);
--> statement-breakpoint
CREATE TABLE "lists" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lists_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"board_id" integer NOT NULL,
	"list_type" smallint NOT NULL,
	"position" integer,
	"label_id" integer,
	"user_id" integer,
	"milestone_id" integer,
	"max_issue_count" integer DEFAULT 0 NOT NULL,
	"max_issue_weight" integer DEFAULT 0 NOT NULL,
	"limit_metric" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "boards" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "boards_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"group_id" integer,
	"name" text NOT NULL,
	"hide_backlog_list" boolean DEFAULT false NOT NULL,
	"hide_closed_list" boolean DEFAULT false NOT NULL,
	"milestone_id" integer,
	"assignee_id" integer,
	"weight" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "boards_one_parent" CHECK (num_nonnulls(project_id, group_id) = 1)
);
--> statement-breakpoint
ALTER TABLE "board_labels" ADD CONSTRAINT "board_labels_board_id_boards_id_fk" FOREIGN KEY ("board_id") REFERENCES "public"."boards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_labels" ADD CONSTRAINT "board_labels_label_id_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_board_id_boards_id_fk" FOREIGN KEY ("board_id") REFERENCES "public"."boards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_label_id_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_board_labels_on_label_id" ON "board_labels" USING btree ("label_id");--> statement-breakpoint
CREATE INDEX "index_lists_on_board_id_and_position" ON "lists" USING btree ("board_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "index_lists_on_board_id_and_label_id" ON "lists" USING btree ("board_id","label_id") WHERE label_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_lists_on_board_id_and_user_id" ON "lists" USING btree ("board_id","user_id") WHERE user_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_lists_on_board_id_and_milestone_id" ON "lists" USING btree ("board_id","milestone_id") WHERE milestone_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_lists_on_label_id" ON "lists" USING btree ("label_id");--> statement-breakpoint
CREATE INDEX "index_boards_on_project_id" ON "boards" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "index_boards_on_group_id" ON "boards" USING btree ("group_id");
CREATE TABLE "alert_management_alert_metric_images" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_management_alert_metric_images_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alert_id" integer NOT NULL,
	"file_name" text NOT NULL,
	"r2_key" text NOT NULL,
	"url" text,
	"url_text" text,
	"size" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_management_alert_metric_images" ADD CONSTRAINT "alert_management_alert_metric_images_alert_id_alert_management_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alert_management_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_alert_management_alert_metric_images_on_alert_id" ON "alert_management_alert_metric_images" USING btree ("alert_id");
CREATE TABLE "push_bursts" (
	"key" text NOT NULL,
	"user_id" text NOT NULL,
	"window_start" bigint NOT NULL,
	"sent" bigint NOT NULL,
	"held" bigint NOT NULL,
	"summary" text NOT NULL,
	"options" text NOT NULL,
	CONSTRAINT "push_bursts_key_user_id_pk" PRIMARY KEY("key","user_id")
);
--> statement-breakpoint
ALTER TABLE "push_bursts" ADD CONSTRAINT "push_bursts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "push_bursts_window_idx" ON "push_bursts" USING btree ("window_start");
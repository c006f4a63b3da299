CREATE TABLE `api_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_workspace_idx` ON `api_keys` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `canvases` (
	`canvas_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`title` text NOT NULL,
	`ext` text NOT NULL,
	`renderer_id` text NOT NULL,
	`visibility` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `canvases_workspace_created_idx` ON `canvases` (`workspace_id`,`created_at`,`canvas_id`,`expires_at`,`visibility`,`ext`);--> statement-breakpoint
CREATE INDEX `canvases_expires_idx` ON `canvases` (`expires_at`);--> statement-breakpoint
CREATE TABLE `files` (
	`file_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`mime` text NOT NULL,
	`blob_key` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`finalized_at` integer,
	`touched_at` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `files_workspace_sha_idx` ON `files` (`workspace_id`,`sha256`);--> statement-breakpoint
CREATE INDEX `files_status_created_idx` ON `files` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_touched_idx` ON `files` (`touched_at`);--> statement-breakpoint
CREATE INDEX `files_blob_key_idx` ON `files` (`blob_key`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`session_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `share_links` (
	`token` text PRIMARY KEY NOT NULL,
	`canvas_id` text,
	`version` integer,
	`password_hash` text,
	`max_views` integer,
	`view_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`canvas_id`) REFERENCES `canvases`(`canvas_id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `share_links_canvas_idx` ON `share_links` (`canvas_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `share_links_expires_idx` ON `share_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sweep_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`user_id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `versions` (
	`canvas_id` text NOT NULL,
	`version` integer NOT NULL,
	`file_id` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`canvas_id`, `version`),
	FOREIGN KEY (`canvas_id`) REFERENCES `canvases`(`canvas_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`file_id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `versions_file_idx` ON `versions` (`file_id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade
);

-- The CLI's sign-ins without a browser (RFC 8628, docs/cli.md); device codes kept by their hash.
CREATE TABLE `device_authorizations` (
	`device_code_hash` text PRIMARY KEY NOT NULL,
	`user_code` text NOT NULL,
	`client_id` text NOT NULL,
	`client_name` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`polled_at` integer,
	`status` text NOT NULL,
	`user_id` text,
	`workspace_id` text,
	`approved_scopes` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_authorizations_user_code_idx` ON `device_authorizations` (`user_code`);--> statement-breakpoint
CREATE INDEX `device_authorizations_expires_idx` ON `device_authorizations` (`expires_at`);
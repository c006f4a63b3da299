CREATE TABLE `idempotency_keys` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`claim` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`status` integer,
	`content_type` text,
	`location` text,
	`body` text,
	PRIMARY KEY(`workspace_id`, `key`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_idx` ON `idempotency_keys` (`expires_at`);
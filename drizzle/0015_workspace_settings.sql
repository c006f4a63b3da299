ALTER TABLE `workspaces` ADD `quota_bytes` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `default_ttl` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `workspaces_deleted_idx` ON `workspaces` (`deleted_at`) WHERE deleted_at IS NOT NULL;
DROP INDEX `files_status_created_idx`;--> statement-breakpoint
DROP INDEX `files_blob_key_idx`;--> statement-breakpoint
ALTER TABLE `files` ADD `uploaded_at` integer;--> statement-breakpoint
CREATE INDEX `files_deleting_idx` ON `files` (`file_id`) WHERE status = 'deleting';
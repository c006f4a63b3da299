-- The deployment's own CLI as an OAuth client, and how each API key was made (docs/cli.md).
-- Keys the CLI's sign-in made before now cannot be told apart from the others: they stay 'person'.
CREATE TABLE `service_values` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `origin` text DEFAULT 'person' NOT NULL;

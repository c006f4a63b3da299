-- People as their identity provider knows them (docs/operations.md): an OpenID Connect issuer and
-- its subject, or a Cloudflare Access team and the email, bound to the account they sign into.
CREATE TABLE `identities` (
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`issuer`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `identities_user_idx` ON `identities` (`user_id`);
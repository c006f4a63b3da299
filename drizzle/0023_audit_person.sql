-- The person behind each event's actor (docs/teams.md#the-audit-log): a key's and an app's events
-- name their person too. Events written before are given theirs as they are named now.
ALTER TABLE `audit_events` ADD `actor_person_name` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `actor_email` text;--> statement-breakpoint
UPDATE `audit_events` SET
  `actor_email` = (SELECT `email` FROM `users` WHERE `users`.`user_id` = `audit_events`.`actor_user_id`),
  `actor_person_name` = (
    SELECT COALESCE(`display_name`, substr(`email`, 1, instr(`email`, '@') - 1))
    FROM `users` WHERE `users`.`user_id` = `audit_events`.`actor_user_id`
  )
WHERE `actor_user_id` IS NOT NULL;

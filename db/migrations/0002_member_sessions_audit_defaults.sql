CREATE TABLE `alarm_defaults` (
	`user_id` varchar(255) NOT NULL,
	`distance` int,
	`clean` int,
	`template` varchar(256),
	`updated_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `alarm_defaults_user_id` PRIMARY KEY(`user_id`)
);
--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`at` datetime(6) NOT NULL,
	`actor_id` varchar(255) NOT NULL,
	`action` varchar(64) NOT NULL,
	`target` varchar(500),
	`details` json,
	`request_id` varchar(64) NOT NULL,
	`status` int NOT NULL,
	CONSTRAINT `audit_log_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `logout_token_uses` (
	`jti` varchar(255) NOT NULL,
	`expires_at` datetime(6) NOT NULL,
	CONSTRAINT `logout_token_uses_jti` PRIMARY KEY(`jti`)
);
--> statement-breakpoint
CREATE TABLE `session_cutoffs` (
	`cutoff_key` varchar(300) NOT NULL,
	`not_before` datetime(6) NOT NULL,
	`keep_sid` varchar(64),
	CONSTRAINT `session_cutoffs_cutoff_key` PRIMARY KEY(`cutoff_key`)
);
--> statement-breakpoint
ALTER TABLE `oidc_sessions` ADD `provider_sid` varchar(255);--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor_at_idx` ON `audit_log` (`actor_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_action_at_idx` ON `audit_log` (`action`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_target_idx` ON `audit_log` (`target`);--> statement-breakpoint
CREATE INDEX `logout_token_uses_expires_idx` ON `logout_token_uses` (`expires_at`);--> statement-breakpoint
CREATE INDEX `session_cutoffs_not_before_idx` ON `session_cutoffs` (`not_before`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_provider_sid_idx` ON `oidc_sessions` (`provider_sid`);
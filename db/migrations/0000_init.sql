CREATE TABLE `oidc_sessions` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`token_hash` varchar(64) NOT NULL,
	`family_id` varchar(36) NOT NULL,
	`family_issued_at` datetime(6) NOT NULL,
	`user_id` varchar(255) NOT NULL,
	`issuer` varchar(500) NOT NULL DEFAULT '',
	`subject` varchar(255) NOT NULL,
	`encrypted_refresh_token` text NOT NULL,
	`encryption_key_id` varchar(32) NOT NULL,
	`expires_at` datetime(6) NOT NULL,
	`revoked_at` datetime(6),
	`revoked_reason` varchar(32),
	`replaced_by_hash` varchar(64),
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	`ip_address` varchar(45),
	`user_agent` varchar(256),
	CONSTRAINT `oidc_sessions_id` PRIMARY KEY(`id`),
	CONSTRAINT `oidc_sessions_token_hash_unique` UNIQUE(`token_hash`)
);
--> statement-breakpoint
CREATE TABLE `quick_pick_applied_states` (
	`id` int AUTO_INCREMENT NOT NULL,
	`user_id` varchar(100) NOT NULL,
	`profile_no` int NOT NULL,
	`quick_pick_id` varchar(50) NOT NULL,
	`alarm_type` varchar(20) NOT NULL DEFAULT 'monster',
	`applied_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	`exclude_pokemon_ids_json` json,
	`tracked_uids_json` json NOT NULL,
	CONSTRAINT `quick_pick_applied_states_id` PRIMARY KEY(`id`),
	CONSTRAINT `quick_pick_applied_user_profile_pick_unique` UNIQUE(`user_id`,`profile_no`,`quick_pick_id`)
);
--> statement-breakpoint
CREATE TABLE `quick_pick_definitions` (
	`id` varchar(50) NOT NULL,
	`name` varchar(200) NOT NULL,
	`description` text,
	`icon` varchar(50) NOT NULL DEFAULT 'bolt',
	`category` varchar(50) NOT NULL DEFAULT 'Common',
	`alarm_type` varchar(20) NOT NULL DEFAULT 'monster',
	`sort_order` int NOT NULL DEFAULT 0,
	`enabled` boolean NOT NULL DEFAULT true,
	`scope` varchar(10) NOT NULL DEFAULT 'global',
	`owner_user_id` varchar(100),
	`filters_json` json NOT NULL,
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	`updated_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `quick_pick_definitions_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `site_settings` (
	`id` int AUTO_INCREMENT NOT NULL,
	`category` varchar(50) NOT NULL DEFAULT 'general',
	`key` varchar(100) NOT NULL,
	`value` text,
	`value_type` varchar(20) NOT NULL DEFAULT 'string',
	CONSTRAINT `site_settings_id` PRIMARY KEY(`id`),
	CONSTRAINT `site_settings_key_unique` UNIQUE(`key`)
);
--> statement-breakpoint
CREATE TABLE `user_geofences` (
	`id` int AUTO_INCREMENT NOT NULL,
	`human_id` varchar(255) NOT NULL,
	`koji_name` varchar(100) NOT NULL,
	`display_name` varchar(100) NOT NULL,
	`group_name` varchar(100) NOT NULL DEFAULT '',
	`status` varchar(20) NOT NULL DEFAULT 'active',
	`parent_id` int,
	`polygon_json` longtext,
	`submitted_at` datetime(6),
	`reviewed_at` datetime(6),
	`reviewed_by` varchar(100),
	`review_notes` text,
	`promoted_name` varchar(100),
	`discord_thread_id` varchar(100),
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	`updated_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `user_geofences_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_delegates` (
	`id` int AUTO_INCREMENT NOT NULL,
	`webhook_id` varchar(500) NOT NULL,
	`user_id` varchar(100) NOT NULL,
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `webhook_delegates_id` PRIMARY KEY(`id`),
	CONSTRAINT `webhook_delegates_webhook_user_unique` UNIQUE(`webhook_id`,`user_id`)
);
--> statement-breakpoint
CREATE INDEX `oidc_sessions_family_idx` ON `oidc_sessions` (`family_id`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_user_revoked_idx` ON `oidc_sessions` (`user_id`,`revoked_at`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_revoked_expires_idx` ON `oidc_sessions` (`revoked_at`,`expires_at`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_expires_idx` ON `oidc_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `quick_pick_definitions_scope_owner_idx` ON `quick_pick_definitions` (`scope`,`owner_user_id`);--> statement-breakpoint
CREATE INDEX `user_geofences_human_idx` ON `user_geofences` (`human_id`);--> statement-breakpoint
CREATE INDEX `user_geofences_koji_name_idx` ON `user_geofences` (`koji_name`);--> statement-breakpoint
CREATE INDEX `user_geofences_status_idx` ON `user_geofences` (`status`);--> statement-breakpoint
CREATE INDEX `webhook_delegates_user_idx` ON `webhook_delegates` (`user_id`);
CREATE TABLE `push_delivery` (
	`user_id` varchar(255) NOT NULL,
	`profile_no` int NOT NULL,
	`mode` varchar(10) NOT NULL,
	CONSTRAINT `push_delivery_user_profile_unique` UNIQUE(`user_id`,`profile_no`)
);
--> statement-breakpoint
CREATE TABLE `push_subscriptions` (
	`id` int AUTO_INCREMENT NOT NULL,
	`user_id` varchar(255) NOT NULL,
	`session_sid` varchar(100),
	`endpoint` text NOT NULL,
	`endpoint_hash` varchar(64) NOT NULL,
	`p256dh` varchar(200) NOT NULL,
	`auth` varchar(100) NOT NULL,
	`device` varchar(100) NOT NULL DEFAULT '',
	`types_json` json,
	`quiet_hours_json` json,
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	`last_sent_at` datetime(6),
	CONSTRAINT `push_subscriptions_id` PRIMARY KEY(`id`),
	CONSTRAINT `push_subscriptions_endpoint_unique` UNIQUE(`endpoint_hash`)
);
--> statement-breakpoint
CREATE INDEX `push_subscriptions_user_idx` ON `push_subscriptions` (`user_id`);
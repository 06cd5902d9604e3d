/** Alerting (docs/api/alerting.md): channel configs, channels, e-mail recipients, policies, silences, groups, maintenance windows, alert events. */
export * from './channel-configs.js';
export * from './channels.js';
export * from './channel-mask.js';
export * from './email-recipients.js';
export * from './policies.js';
export * from './noise-rules.js';
export * from './templates.js';
export * from './windows.js';
export * from './events.js';
export * from './owner.js';

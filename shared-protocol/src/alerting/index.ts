/** Alerting (docs/api/alerting.md): channel configs, channels, policies, silences, groups, maintenance windows, alert events. */
export * from './channel-configs.js';
export * from './channels.js';
export * from './policies.js';
export * from './windows.js';
export * from './events.js';
